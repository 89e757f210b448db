# SPDX-License-Identifier: MIT
# Dependency files that outlive their source.
#
# gcc -MMD -MP writes a .d beside each object: "obj.o: main.c a.h b.h",
# then an empty rule "a.h:" for each header.  Those empty rules (-MP) mean
# a header that is deleted or moved is no error: make rebuilds the object
# and gcc writes a fresh .d.  -MP does not cover the main source, though.
# When a source moves but its object keeps its name (the user tests moved
# from user/tests/ to tests/user/ and are still built as
# build/user/tests/NAME.o), an old build folder's .d names the old path,
# and make stops with "No rule to make target 'user/tests/NAME.c'".
#
# So every Makefile includes its .d files through live-deps: a .d whose
# main source (the first word after "obj.o:") still exists is included; a
# stale one is left out, and its object is made to depend on the phony
# stale-dep, so it is rebuilt from the source its own rule names and gcc
# replaces the .d.  The next make reads the new .d as usual.  (Linux's
# kbuild avoids the problem another way: its fixdep keeps the main source
# out of the dependency list it writes.)
#
#     -include $(call live-deps,$(OBJS:.o=.d))

dep-words  = $(file < $(1))
dep-target = $(patsubst %:,%,$(firstword $(call dep-words,$(1))))
dep-source = $(firstword $(filter-out %: \,$(call dep-words,$(1))))
live-deps  = $(foreach d,$(wildcard $(1)),$(if $(wildcard $(call dep-source,$(d))),$(d),$(eval $(call dep-target,$(d)): stale-dep)))

.PHONY: stale-dep
