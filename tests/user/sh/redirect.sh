# pipes and redirections; `dd status=none` copies as cat would (dd is the
# one general program that is Spindle's in both userlands)
echo piped | dd status=none | dd status=none
echo one > f; echo two >> f; dd status=none < f
dd if=f status=none | dd status=none | dd status=none
dd if=/nonexistent status=none 2> err; echo st=$?; dd if=err status=none
dd if=/nonexistent status=none 2>&1 | dd status=none
echo to-stderr >&2 2>/dev/null
echo both > out 2>&1; dd if=out status=none
dd if=nofile status=none > x 2>&1; dd if=x status=none
