# shellcheck shell=bash
# bash completion for snowflake-c: written by `snowflake-c completions bash`,
# from the command's own tables (core/cli/commands.c, options.c). Do not edit.
_snowflake_c() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} words=""
  # --NAME=VALUE: COMP_WORDBREAKS splits it at the '='.
  [[ $cur = = ]] && cur=""
  [[ $prev = = ]] && prev=${COMP_WORDS[COMP_CWORD - 2]}
  if ((COMP_CWORD == 1)); then
    words="gen serve decode convert encode range layout presets sql lease help completions -h --help -V --version"
  else
    case $prev in
    --preset) words="default twitter discord sonyflake baidu instagram jssafe" ;;
    --format | --to) words="dec hex base32 base36 base58 base62" ;;
    --from) words="dec hex base32 base36 base58 base62 uuid7" ;;
    --rollback) words="default error wait clock borrow switch" ;;
    --time-source) words="wall monotonic counter" ;;
    --state-dir)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      return
      ;;
    --layout | --epoch | --node | -n | --count | --time | --schema | --listen | --max-count | --token | --max-connections | --idle-timeout | --lease | --max-wait | --max-drift | --state-reserve | --lease-duration | --lease-key) return ;;
    *)
      case ${COMP_WORDS[1]} in
      gen) words="--preset --layout --epoch --node --count --json --format --shortest --fixed --stats --monotonic --lease --help --rollback --max-wait --max-drift --random-start --time-source --state-dir --state-reserve --no-guard --lease-duration --lease-key" ;;
      serve) words="--preset --layout --epoch --node --monotonic --listen --max-count --token --max-connections --idle-timeout --lease --help --rollback --max-wait --max-drift --random-start --time-source --state-dir --state-reserve --no-guard --lease-duration --lease-key" ;;
      decode) words="--preset --layout --epoch --json --from --help" ;;
      convert) words="--json --from --to --shortest --fixed --help" ;;
      encode) words="--preset --layout --epoch --time --json --help" ;;
      range) words="--preset --layout --epoch --json --help" ;;
      layout) words="--preset --layout --epoch --json --help" ;;
      presets) words="--json --help" ;;
      sql) words="--preset --layout --epoch --schema --help" ;;
      lease) words="--lease --help" ;;
      help) words="gen serve decode convert encode range layout presets sql lease help completions --man --help" ;;
      completions) words="bash zsh fish --help" ;;
      esac
      ;;
    esac
  fi
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}
complete -F _snowflake_c snowflake-c
