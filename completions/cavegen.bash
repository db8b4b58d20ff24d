# bash completion for cavegen(1): options, preset names (from the program's
# own --list-presets), formats, files. Installed as
# share/bash-completion/completions/cavegen; works with or without the
# bash-completion package. tests/test_install.sh checks it against --help.

_cavegen()
{
    local cur prev prefix="" attached=0
    local -a words=("${COMP_WORDS[@]}")
    local cword=$COMP_CWORD
    cur=${words[cword]}
    prev=""
    ((cword > 0)) && prev=${words[cword - 1]}

    # "--opt=value": bash splits at '=' when it is in COMP_WORDBREAKS (the
    # default), else the word holds all of it.
    if [[ $cur == "=" ]]; then
        cur=""
        attached=1
    elif [[ $prev == "=" ]] && ((cword >= 2)); then
        prev=${words[cword - 2]}
        attached=1
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        prefix="$prev="
        cur=${cur#*=}
        attached=1
    fi

    # The formats the program itself knows: the first word of each line.
    local formats
    formats=$("${words[0]}" --list-formats 2>/dev/null | while read -r name _; do
        printf '%s\n' "$name"
    done)
    local presets
    case $prev in
    -p | --preset | --show-preset)
        # The names the program itself knows: the first word of each line.
        presets=$("${words[0]}" --list-presets 2>/dev/null | while read -r name _; do
            printf '%s\n' "$name"
        done)
        COMPREPLY=($(compgen -P "$prefix" -W "$presets" -- "$cur"))
        if [[ $prev != --show-preset ]]; then
            # --preset also takes a preset file.
            compopt -o filenames 2>/dev/null
            COMPREPLY+=($(compgen -P "$prefix" -f -- "$cur"))
        fi
        return 0
        ;;
    -f | --format)
        COMPREPLY=($(compgen -P "$prefix" -W "$formats" -- "$cur"))
        return 0
        ;;
    -i | --input | -o | --output)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -P "$prefix" -f -- "$cur"))
        return 0
        ;;
    --stats)
        # An optional value: only attached (--stats=json).
        if ((attached)); then
            COMPREPLY=($(compgen -P "$prefix" -W "text json" -- "$cur"))
            return 0
        fi
        ;;
    --reach)
        # X,Y is typed; the one word it takes is offered.
        COMPREPLY=($(compgen -P "$prefix" -W "entrance" -- "$cur"))
        return 0
        ;;
    -s | --seed | -W | --width | -H | --height | --size | --step | --fill | --generations | -D | --set | \
        --scale | --max-attempts | --max-memory | --moves | -n | --count | -j | --jobs | --chunk)
        # A number or a step: nothing to offer.
        COMPREPLY=()
        return 0
        ;;
    esac

    if [[ $cur == -* ]]; then
        local opts="--preset --set --step --fill --generations --seed --width --height --size
            --input --reach --moves --max-attempts --keep-going --max-memory --output --format --scale --preview --stats --list-presets --list-formats
            --show-preset --quiet --help --version --count --jobs --chunk
            -p -D -s -W -H -i -o -f -n -j -q -h -V"
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return 0
    fi
    COMPREPLY=()
    return 0
}
complete -F _cavegen cavegen
