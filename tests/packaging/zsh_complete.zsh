#!/bin/zsh -f
# Prints the candidates zsh's completion system offers for command lines, using the completion
# functions in DIR: an interactive zsh runs in a pseudo-terminal (zsh/zpty), compinit loads
# DIR's functions, a compadd wrapper prints every candidate added, and TAB is typed after each
# LINE. Output: for each LINE, a line "== LINE", then its candidates, one a line, sorted.
# Used by tests/test_packaging.cpp for completions/_sm120check.
#   zsh -f zsh_complete.zsh DIR 'sm120check verify --no-' ['sm120check gpu --'...]
# Exit 2: zsh/zpty missing; 3: the shell did not start.
zmodload zsh/zpty || exit 2
dir=$1
shift
zpty z zsh -f -i
# sm120check itself is a no-op function here: completion only needs the name.
zpty -w z "PS1=''; RPROMPT=''; LISTMAX=1000000; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D; sm120check() { :; }"
zpty -w z 'compadd () { local -a __hits; builtin compadd -O __hits "$@"; local h; for h in $__hits; do print -r -- "HIT:$h"; done; builtin compadd "$@" }'
# Completion ends with a marker: the next keys are typed only then (zsh drops a completion's
# work when it sees keys typed ahead, which made this test flaky on a loaded machine). LISTMAX
# keeps it from asking "do you wish to see all N possibilities?" for long lists.
zpty -w z 'autoload +X _main_complete; functions[_sm120check_orig_main]=$functions[_main_complete]; _main_complete() { _sm120check_orig_main "$@"; local r=$?; print -r -- "${:-COMP}END"; return r }'
zpty -w z 'print -r -- ${:-REA}DY'
zpty -r z line '*READY*' || exit 3
integer i=0
for cmdline in "$@"; do
  (( i++ ))
  zpty -w -n z "$cmdline"$'\t'
  zpty -r z out '*COMPEND*'
  # Ctrl-U drops the completed line; the marker's echo ("${:-DO}NE") differs from its output.
  # The reads block until their markers (callers bound the time).
  zpty -w z $'\C-u''print -r -- ${:-DO}NE'$i'.'
  zpty -r z rest "*DONE$i.*"
  print -r -- "== $cmdline"
  print -r -- "$out" | tr -d '\r' | grep -o 'HIT:[^[:space:]]*' | cut -c5- | sort -u
done
zpty -d z
