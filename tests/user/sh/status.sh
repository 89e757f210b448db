# $?, && and ||, builtins, command not found
false; echo $?
true; echo $?
true && echo and-ok || echo and-no
false && echo or-no || echo or-ok
false || false && echo no2
true || echo skipped && echo after-skip
sh -c 'exit 3'; echo three=$?
nosuchcommand; echo missing=$?
cd /; pwd
cd /nonexistent-dir; echo cd=$?
export EXPORTED=yes; sh -c 'echo child sees $EXPORTED'
LOCAL=no; sh -c 'echo child sees "[$LOCAL]"'
ONCE=just-this sh -c 'echo $ONCE'; echo "after: [$ONCE]"
exit 7
echo not reached
