#!/usr/bin/env bash
# test/stat/randomness.sh: statistical tests of id_encode's outputs for
# consecutive ids (1, 2, 3, ...), the input that matters: a table's keys.
#
#   bash test/stat/randomness.sh sample   # in the suite (test/t/060_id_encode_randomness.pl), about 2 minutes
#   bash test/stat/randomness.sh long     # on demand (make randomness): dieharder -a, an hour or more
#
# The outputs' bits are packed into one stream (63 bits per id, or 53 with
# js_safe) by test/stat/id_stream, built from the same core as the SQL
# functions, and fed to Debian's ent and dieharder.  The key is fixed, so
# every run sees the same bytes and gets the same figures.  Besides
# id_encode the sample run tests mappings that must fail, to show the tests
# can fail: the identity, multiplicative hashing (id * 0x9E3779B97F4A7C15
# mod 2^63) and the same Feistel network with one round.  It also reports,
# without a verdict, the network with two rounds: it passes these tests
# although two rounds are known to be weak, which is what statistical tests
# can and cannot say.
#
# One line per mapping:
#   RESULT <mapping> <bits> ent=PASS|FAIL dieharder=PASS|FAIL <figures>
# PASS for ent: entropy >= 7.999 bits per byte, chi-square of the byte counts
# between 190.8 and 330.5 (its 0.1% and 99.9% points for 255 degrees of
# freedom), mean within 0.2 of 127.5, |serial correlation| < 0.002, Monte
# Carlo pi within 0.5%.  PASS for dieharder: no test FAILED, at most one WEAK.
set -euo pipefail
MODE=${1:-sample}
HERE=$(cd "$(dirname "$0")" && pwd)
STREAM=${ID_STREAM:-$HERE/id_stream}
KEY='id_gen test key'
command -v ent >/dev/null || { echo "ent is not installed (apt-get install ent)" >&2; exit 2; }
command -v dieharder >/dev/null || { echo "dieharder is not installed (apt-get install dieharder)" >&2; exit 2; }
[ -x "$STREAM" ] || { echo "$STREAM is not built (make test/stat/id_stream)" >&2; exit 2; }

if [ "$MODE" = long ]; then
    ENT_IDS=100000000
    DH_TESTS="-a"
    MAPPINGS="encode:63 encode:53"
else
    ENT_IDS=1000000
    # birthdays, parking lot, runs, STS monobit: a few seconds each
    DH_TESTS="0 10 15 100"
    MAPPINGS="encode:63 encode:53 identity:63 multiplicative:63 feistel1:63 feistel2:63"
fi

for mb in $MAPPINGS; do
    m=${mb%:*} bits=${mb#*:}
    # ent -t: 1,bytes,entropy,chi-square,mean,monte-carlo-pi,serial-correlation
    ent_line=$("$STREAM" "$m" "$bits" "$KEY" "$ENT_IDS" | ent -t | tail -1)
    ent_verdict=$(awk -F, '{
        pi_err = ($6 - 3.14159265) / 3.14159265; if (pi_err < 0) pi_err = -pi_err;
        sc = $7; if (sc < 0) sc = -sc;
        ok = $3 >= 7.999 && $4 >= 190.8 && $4 <= 330.5 && $5 >= 127.3 && $5 <= 127.7 && sc < 0.002 && pi_err < 0.005;
        printf "%s entropy=%s chi2=%s mean=%s pi=%s serial=%s", ok ? "PASS" : "FAIL", $3, $4, $5, $6, $7 }' <<<"$ent_line")
    dh_out=
    for t in $DH_TESTS; do
        [ "$t" = -a ] && args=(-a) || args=(-d "$t")
        dh_out+=$("$STREAM" "$m" "$bits" "$KEY" 0 2>/dev/null | dieharder -g 200 -S 1 "${args[@]}" 2>/dev/null || true)
        dh_out+=$'\n'
    done
    [ "$MODE" = long ] && printf '%s\n' "$dh_out" >&2
    nt=$(grep -cE '\|(  PASSED  |   WEAK   |  FAILED  )$' <<<"$dh_out" || true)
    nf=$(grep -cE '\|  FAILED  $' <<<"$dh_out" || true)
    nw=$(grep -cE '\|   WEAK   $' <<<"$dh_out" || true)
    dh_verdict=PASS
    { [ "$nt" -eq 0 ] || [ "$nf" -gt 0 ] || [ "$nw" -gt 1 ]; } && dh_verdict=FAIL
    echo "RESULT $m $bits ent=${ent_verdict%% *} dieharder=$dh_verdict ${ent_verdict#* } dieharder_tests=$nt failed=$nf weak=$nw ids_for_ent=$ENT_IDS"
done
