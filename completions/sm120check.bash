# bash completion for sm120check(1): commands, each command's options, and their values.
# Installed as share/bash-completion/completions/sm120check (loaded on demand by the
# bash-completion package); or source it from ~/.bashrc. Plain bash: it needs none of
# bash-completion's helpers. tests/test_packaging.cpp checks it offers every option that
# `sm120check CMD --help` lists.

_sm120check() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=${COMP_WORDS[COMP_CWORD - 1]}
    local commands="verify apply log scan kernels show grep gpu"
    local common="-h --help --version --format --color --output -q --quiet"
    local cmd="" i
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            verify | apply | log | scan | kernels | show | grep | gpu)
                cmd=${COMP_WORDS[i]}
                break
                ;;
        esac
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands -h --help --version" -- "$cur"))
        return 0
    fi

    local opts
    case $cmd in
        verify)
            opts="-p --strip --fuzz --ignore-whitespace --strict --independent -j --threads
                  --markers --marker --marker-regex --map --no-relocate --include --exclude
                  --cc --no-gpu --only-relevant --rev --no-repo" ;;
        apply)
            opts="--dry-run -R --reverse --backup -p --strip --fuzz --ignore-whitespace --strict
                  --map --include --exclude --relocate --rev --cc --no-gpu" ;;
        log)
            opts="--rev --in -p --strip --fuzz --ignore-whitespace --strict -j --threads
                  --cc --no-gpu" ;;
        scan)
            opts="--catalog --only --list --cc --no-gpu --only-relevant --stay-inside
                  --no-kernels --max-depth --max-entries" ;;
        kernels)
            opts="--cc --no-gpu --entries" ;;
        show)
            opts="" ;;
        grep)
            opts="-E --regex --patch --gitignore --max-filesize -j --threads" ;;
        gpu)
            opts="--cc --limits" ;;
    esac

    # The value of the option before the cursor.
    case $prev in
        --format)
            # The CI formats are verify's and scan's.
            case $cmd in
                verify | scan) COMPREPLY=($(compgen -W "text json junit github sarif" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
            esac
            return 0 ;;
        --output)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            return 0 ;;
        --color)
            COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
            return 0 ;;
        --cc)
            COMPREPLY=($(compgen -W "12.0 12.1 10.0 10.3 9.0 8.9 8.6 8.0 sm_120 sm_121 sm_100 sm_90a" -- "$cur"))
            return 0 ;;
        --rev | --in)
            # Refs of the repository around the current directory (TARGET is not known yet).
            COMPREPLY=($(compgen -W "HEAD $(git for-each-ref --format='%(refname:short)' 2>/dev/null)" -- "$cur"))
            return 0 ;;
        --only)
            COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" scan --list 2>/dev/null | cut -d' ' -f1)" -- "$cur"))
            return 0 ;;
        --catalog)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -d -- "$cur"))
            return 0 ;;
        --patch)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            return 0 ;;
        -p | --strip | --fuzz | -j | --threads | --max-depth | --max-entries | --max-filesize | \
            --marker | --marker-regex | --map)
            return 0 ;;  # a number or free text: nothing to offer
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts $common" -- "$cur"))
        return 0
    fi
    [[ $cmd == gpu ]] && return 0  # no operands
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
    return 0
}

complete -F _sm120check sm120check
