// The shell functions every reproducer starts with (script.ts): the request and watch senders,
// the capture of a server's values, the masking of answers and the verdict. The @SED_…@ marks
// are the masking expressions, filled in by script.ts from the lists it shares with secrets.ts.
export const HELPERS = `
command -v curl >/dev/null 2>&1 || { echo "this reproducer needs curl" >&2; exit 2; }
WORK=$(mktemp -d)
WATCHES=()
CREATED=()
finish() {
  local IFS=$'\\n'
  for p in "\${WATCHES[@]}"; do kill "$p" 2>/dev/null; done
  if [ -z "$ORCH_KEEP" ]; then
    local i
    for ((i = \${#CREATED[@]} - 1; i >= 0; i--)); do
      curl -sS -o /dev/null --max-time "$ORCH_MAX_TIME" -X DELETE $(creds default) "$ORCH_ENDPOINT\${CREATED[i]}" 2>/dev/null
    done
    rm -rf "$WORK"
  else
    echo "answers kept in $WORK" >&2
  fi
}
trap finish EXIT
# percent-encodes a query value
enc() {
  local s=$1 o= c i
  for ((i = 0; i < \${#s}; i++)); do
    c=\${s:i:1}
    case $c in [a-zA-Z0-9._~-]) o+=$c ;; *) printf -v c '%%%02X' "'$c"; o+=$c ;; esac
  done
  printf '%s' "$o"
}
# the curl options of the TLS settings and of whose credentials (default, anonymous, tokenN)
creds() {
  [ -n "$ORCH_CA" ] && printf '%s\\n' --cacert "$ORCH_CA"
  [ -n "$ORCH_INSECURE" ] && printf '%s\\n' -k
  case $1 in
  default)
    [ -n "$ORCH_TOKEN" ] && printf '%s\\n' -H "Authorization: Bearer $ORCH_TOKEN"
    [ -n "$ORCH_CLIENT_CERT" ] && printf '%s\\n' --cert "$ORCH_CLIENT_CERT" --key "$ORCH_CLIENT_KEY"
    ;;
  token*)
    local v="ORCH_TOKEN_\${1#token}"
    # unset: a token no server accepts stands in (the case may have sent an invalid one on purpose)
    printf '%s\\n' -H "Authorization: Bearer \${!v:-ORCH_TOKEN_\${1#token}-not-set}"
    ;;
  esac
  return 0
}
# the body on stdin without the newline its here-document ended with
body() {
  local b
  b=$(cat; printf x)
  b=\${b%x}
  printf '%s' "\${b%$'\\n'}"
}
# send STEP AUTH METHOD PATH [curl options]: one request; its status, head and body go to $WORK
send() {
  local step=$1 auth=$2 method=$3 path=$4 code
  shift 4
  # no User-Agent and no Accept of curl's own: the run sent only the headers each step names
  local -a a=(-sS -o "$WORK/$step.body" -D "$WORK/$step.head" -w '%{http_code}' --max-time "$ORCH_MAX_TIME" -H 'User-Agent:' -H 'Accept:')
  if [ "$method" = HEAD ]; then a+=(--head); else a+=(-X "$method"); fi
  local IFS=$'\\n'
  code=$(curl "\${a[@]}" $(creds "$auth") "$@" "$ORCH_ENDPOINT$path" 2>"$WORK/$step.err")
  printf '%s' "\${code:-000}" >"$WORK/$step.code"
  echo "step $step: $method $path -> \${code:-000}"
  if [ "$step" = 1 ] && [ "\${code:-000}" = 000 ] && [ "$WANT1" != 0 ]; then
    echo "could not replay: $ORCH_ENDPOINT did not answer the first request: $(cat "$WORK/$step.err")" >&2
    exit 2
  fi
}
# watch_open STEP AUTH SECONDS PATH [curl options]: a watch, read in the background for SECONDS
watch_open() {
  local step=$1 auth=$2 secs=$3 path=$4 i
  shift 4
  local IFS=$'\\n'
  # -w's status goes to the .code file when curl ends by itself; a closed watch's comes from its head
  curl -sS -N -o "$WORK/$step.body" -D "$WORK/$step.head" -w '%{http_code}' --max-time "$secs" -H 'User-Agent:' -H 'Accept:' \\
    $(creds "$auth") "$@" "$ORCH_ENDPOINT$path" >"$WORK/$step.code" 2>"$WORK/$step.err" &
  WATCHES+=("$!")
  printf -v "WATCH_$step" '%s' "$!"
  printf -v "WATCH_END_$step" '%s' "$((SECONDS + secs))"
  # the stream is open once its head came (or curl gave up)
  for ((i = 0; i < secs * 20; i++)); do
    [ -s "$WORK/$step.head" ] && break
    kill -0 "$!" 2>/dev/null || break
    sleep 0.05
  done
  echo "step $step: watch $path (open $secs s)"
}
# watch_close STEP N TICKS: ends the watch of STEP once N events (BOOKMARKs aside) came and TICKS
# times 50 ms more passed, as the run did, or its time is up; notes whether the server ended it first
watch_close() {
  local step=$1 want=$2 ticks=$3 pid end got
  pid="WATCH_$step"
  end="WATCH_END_$step"
  while [ "$SECONDS" -lt "\${!end}" ]; do
    got=$(grep -v '"type"[[:space:]]*:[[:space:]]*"BOOKMARK"' "$WORK/$step.body" 2>/dev/null | grep -c .)
    [ "\${got:-0}" -ge "$want" ] && break
    kill -0 "\${!pid}" 2>/dev/null || break
    sleep 0.05
  done
  # as long as the run kept it open after its last event (at least the events in flight)
  local t
  for ((t = 0; t < 4 || t < ticks; t++)); do
    kill -0 "\${!pid}" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "\${!pid}" 2>/dev/null; then
    echo 0 >"$WORK/$step.ended"
    kill "\${!pid}" 2>/dev/null
  fi
  wait "\${!pid}" 2>/dev/null
  [ -s "$WORK/$step.ended" ] || echo 1 >"$WORK/$step.ended"
  [ -s "$WORK/$step.code" ] && [ "$(cat "$WORK/$step.code")" != 000 ] || printf '%s' "$(grep -m1 -o '^HTTP/[0-9.]* [0-9]*' "$WORK/$step.head" | cut -d' ' -f2)" >"$WORK/$step.code"
  echo "step $step: watch closed, $(grep -c . "$WORK/$step.body" 2>/dev/null || echo 0) lines"
}
# capture STEP KEY N: the value of the N-th "KEY":"..." in STEP's answer
capture() {
  grep -o "\\"$2\\"[[:space:]]*:[[:space:]]*\\"[^\\"]*\\"" "$WORK/$1.body" 2>/dev/null | sed -n "$3p" | sed -E 's/.*"([^"]*)"$/\\1/'
}
# uids STEP KEYS: STEP's answer with each value of KEYS (uid, or uid|resourceVersion for a
# watch's events) labelled as the run's was (uids.ts): @K.N where it first occurs in another
# step's answer (the N-th such value of step K), itself when the case chose it, ~ otherwise
uids() {
  local k
  local -a files=()
  for ((k = 1; k <= STEPS; k++)); do
    [ "$k" != "$1" ] && [ -f "$WORK/$k.body" ] && files+=("$WORK/$k.body")
  done
  awk -v keep=" $KEEP_UIDS " -v target="$WORK/$1.body" -v keys="$2" '
    function scan(line, label,   out, tok, v, key) {
      out = ""
      while (match(line, "\\"(" keys ")\\"[ \\t]*:[ \\t]*\\"[^\\"]*\\"")) {
        tok = substr(line, RSTART, RLENGTH)
        key = substr(tok, 2, index(substr(tok, 2), "\\"") - 1)
        v = tok
        sub(/^"[A-Za-z]+"[ \\t]*:[ \\t]*"/, "", v)
        sub(/"$/, "", v)
        if (label) {
          out = out substr(line, 1, RSTART - 1) "\\"" key "\\":\\"" (key == "uid" && index(keep, " " v " ") ? v : ((v in at) ? at[v] : "~")) "\\""
        } else {
          n[step]++
          if (!(v in at)) at[v] = "@" step "." n[step]
          out = out substr(line, 1, RSTART + RLENGTH - 1)
        }
        line = substr(line, RSTART + RLENGTH)
      }
      return out line
    }
    FNR == 1 { step = FILENAME; sub(/.*\\//, "", step); sub(/\\.body$/, "", step) }
    FILENAME == target { print scan($0, 1); next }
    { scan($0, 0) }
  ' "\${files[@]}" "$WORK/$1.body" 2>/dev/null
}
# an answer with what a server picks anew each time masked; a watch's without empty lines, and
# without BOOKMARKs when it asked for them (watchb: when they come is the server's choice)
norm() {
  sed -E -e '@SED_VOLATILE@' -e '@SED_JWT@' -e '@SED_KEY@' -e 's/^[[:space:]]+//' -e 's/[[:space:]]+$//' |
    case $1 in
    watch) grep -v '^$' ;;
    watchb) grep -v '^$' | grep -v '"type"[[:space:]]*:[[:space:]]*"BOOKMARK"' ;;
    *) cat ;;
    esac
}
# compare STEP KIND: whether STEP's answer is the run's (WANT_*_STEP); prints how it differs
compare() {
  local step=$1 kind=$2 p code type got want ended=- rc wtype wended=- wcode wt wb
  wcode="WANT_CODE_$step"
  wt="WANT_TYPE_$step"
  wb="WANT_BODY_$step"
  if [ "$kind" = watch ] || [ "$kind" = watchb ]; then
    if [ ! -s "$WORK/$step.ended" ]; then
      # still open: it ends by the server's doing, or at its --max-time (curl's 28)
      p="WATCH_$step"
      wait "\${!p}" 2>/dev/null
      rc=$?
      if [ "$rc" = 28 ]; then echo 0 >"$WORK/$step.ended"; else echo 1 >"$WORK/$step.ended"; fi
    fi
    ended=$(cat "$WORK/$step.ended")
    p="WANT_ENDED_$step"
    wended=\${!p}
  fi
  code=$(cat "$WORK/$step.code" 2>/dev/null || echo 000)
  type=$(grep -i '^content-type:' "$WORK/$step.head" 2>/dev/null | tail -n 1 | cut -d: -f2- | tr -d ' \\r' | tr 'A-Z' 'a-z')
  if [ "$kind" = binary ]; then
    got=$(base64 -w0 <"$WORK/$step.body" 2>/dev/null)
    want=\${!wb}
  else
    if [ "$kind" = text ]; then got=$(uids "$step" uid | norm "$kind"); else got=$(uids "$step" 'uid|resourceVersion' | norm "$kind"); fi
    want=$(printf '%s\\n' "\${!wb}" | norm "$kind")
  fi
  wtype=$(printf '%s' "\${!wt}" | tr -d ' ' | tr 'A-Z' 'a-z')
  if [ "$code" = 000 ] && [ "\${!wcode}" = 0 ]; then
    echo "step $step got no answer, as in the run ($(cat "$WORK/$step.err"))"
    return 0
  fi
  if [ "$code" = "\${!wcode}" ] && [ "$type" = "$wtype" ] && [ "$got" = "$want" ] && [ "$ended" = "$wended" ]; then
    echo "step $step was answered as in the run ($code \${type:-no content type})"
    return 0
  fi
  echo "step $step was answered differently from the run"
  [ "$code" = "\${!wcode}" ] || echo "  status: $code (the run got \${!wcode})"
  [ "$type" = "$wtype" ] || echo "  content type: \${type:-none} (the run got \${wtype:-none})"
  [ "$ended" = "$wended" ] || echo "  the server ended the stream: $([ "$ended" = 1 ] && echo yes || echo no) (in the run: $([ "$wended" = 1 ] && echo yes || echo no))"
  if [ "$got" != "$want" ]; then
    echo "  body (- the run's, + this replay's, masked):"
    diff <(printf '%s\\n' "$want") <(printf '%s\\n' "$got") | grep '^[<>]' | head -n 20 | sed 's/^</  -/; s/^>/  +/'
  fi
  return 1
}
# verdict STEP:KIND...: the failure reproduces (exit 1) when every one of these steps was
# answered as in the run; otherwise it does not (exit 0)
verdict() {
  local p one
  # the failing step is last: a watch among them is waited for first
  for one in "$@"; do
    case \${one#*:} in watch | watchb) compare "\${one%%:*}" "\${one#*:}" >"$WORK/verdict.\${one%%:*}" ;; esac
  done
  for p in "\${WATCHES[@]}"; do wait "$p" 2>/dev/null; done
  WATCHES=()
  for one in "$@"; do
    case \${one#*:} in
    watch | watchb) cat "$WORK/verdict.\${one%%:*}"; grep -q 'differently' "$WORK/verdict.\${one%%:*}" && { echo "not reproduced"; exit 0; } ;;
    *) compare "\${one%%:*}" "\${one#*:}" || { echo "not reproduced"; exit 0; } ;;
    esac
  done
  echo "reproduced: the failure is the run's"
  exit 1
}
`;
