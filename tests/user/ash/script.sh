# SPDX-License-Identifier: MIT
# A shell script for busybox's ash on Spindle (tests/qemu/scenarios/
# busybox-ash.scn compares its output with script.out): the control flow,
# pipelines, substitutions and jobs a user's script relies on.

# functions, if/elif/else, arithmetic
classify() {
	if [ "$1" -lt 10 ]; then echo "$1 small"
	elif [ "$1" -lt 100 ]; then echo "$1 medium"
	else echo "$1 large"; fi
}
for n in 5 50 500; do classify $n; done

# while with a counter, case
i=0
while [ $i -lt 3 ]; do
	case $i in
	0) echo zero ;;
	1) echo one ;;
	*) echo many ;;
	esac
	i=$((i + 1))
done

# a pipeline of five processes
seq 1 20 | grep 1 | sort -rn | head -3 | tr '\n' ' '
echo

# command substitution, nested
count=$(echo "$(seq 1 7)" | wc -l)
echo "count=$count"

# a here-document with an expansion, into a filter
name=spindle
cat <<END | sed 's/^/> /'
hello $name
two lines
END

# globbing in a directory of its own
mkdir -p /tmp/glob && cd /tmp/glob && touch a.txt b.txt c.log
echo *.txt
cd /

# background jobs and wait: each writes its own file
for j in 1 2 3; do (sleep 0; echo "job $j" > /tmp/job$j) & done
wait
cat /tmp/job1 /tmp/job2 /tmp/job3

# exit status of a pipeline and of a subshell
false | true; echo "pipe status $?"
(exit 7); echo "subshell status $?"

# awk over a file Spindle generates
awk 'NR == 1 { print "proc fields", NF }' /proc/partitions
