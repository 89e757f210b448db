# words, quoting and comments
echo hello   world # a comment
echo 'single  $HOME "x"' "double $UNSET_VAR end" \$escaped a\ b
echo "tab	inside" 'it''s' "q\"uote\\" "\$literal"
echo -n no-newline; echo
X=42; echo "x=$X" ${X}y "$X"z
Y="two words"; echo "[$Y]" [$Y]
echo $# $1 $2 ${1}x
