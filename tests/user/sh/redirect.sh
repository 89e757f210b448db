# pipes and redirections
echo piped | cat | cat
echo one > f; echo two >> f; cat < f
cat f | cat - | cat
ls /nonexistent 2> err; echo st=$?; cat err
ls /nonexistent 2>&1 | cat
echo to-stderr >&2 2>/dev/null
echo both > out 2>&1; cat out
cat nofile > x 2>&1; cat x
ls
