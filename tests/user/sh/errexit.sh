# set -e: a failing command ends the script, except left of && / ||
set -e
false || echo rescued
false && echo never
echo still-here
false
echo not-reached
