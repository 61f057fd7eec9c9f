# SPDX-License-Identifier: GPL-2.0
#
# The bench's guests, as tests/bench/run.sh and profile.sh boot them;
# sourced.  Needs $top and $build.
#
#   bench_guest WHO SPEC OUT
#       boot SPEC (a KERNEL of tests/qemu/run.sh) in mode bench, with the
#       caller's BENCH_ARGS, GUEST_BINS or PROFILE, for up to 40 minutes
#       (a full run takes about 10 under TCG), and keep the guest's
#       records in OUT; false, said on stderr after WHO, when QEMU failed,
#       the guest did not finish or a reader failed
bench_guest() {
	bench_status=0
	QEMU_TIMEOUT=2400 "$top/tests/qemu/run.sh" --mode bench "$2" >&2 ||
		bench_status=1
	cp "$build/result-${2%%:*}.log" "$3" 2>/dev/null || : > "$3"
	if ! grep -q '^# bench: done' "$3"; then
		echo "$1: ${2%%:*}: the guest did not finish:" >&2
		tail -n 5 "$3" >&2
		bench_status=1
	fi
	if grep -q '^fail' "$3"; then
		echo "$1: ${2%%:*}: a reader failed:" >&2
		grep '^fail' "$3" >&2
		bench_status=1
	fi
	return $bench_status
}
