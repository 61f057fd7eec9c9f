# SPDX-License-Identifier: GPL-2.0
# Shell helpers for the guest scripts, sourced as /lib.sh.

# The vDSO page is mapped by every process, and each one that exits after
# touching it may flip its PG_referenced (mark_page_accessed() on unmap),
# so its state is nobody's to keep still: comparisons of a stopped
# target's text leave its range lines out.
without_vdso_ranges() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { vdso = / \[vdso\]$/ } !(vdso && /\t/)' "$1"
}
