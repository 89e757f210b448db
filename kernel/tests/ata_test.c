/*
 * ata_test.c - the IDE driver (drivers/ata/ata_piix.c) from inside.
 */
#include <spindle/ktest.h>
#include <spindle/blkdev.h>
#include <spindle/blk-mq.h>
#include "../../drivers/ata/ata.h"

KTEST(ata, present)
{
	KT_ASSERT(lookup_bdev("hda") != NULL);
}
