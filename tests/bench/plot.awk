# SPDX-License-Identifier: GPL-2.0
# The scaling series of tests/guest/bench.c as one SVG: time against
# resident pages (dense, 64 MiB to 1 GiB) and time against virtual size
# (sparse, 1000 pages in 1 GiB to 64 TiB), one line per kernel and reader.
# x is logarithmic (each point doubles or grows 16 times), y linear from 0.
# A kernel whose clock ticked in jiffies (tests/bench/table.awk) is not
# drawn, and a line under the panels says so.
#
#   awk -f tests/bench/plot.awk records-KERNEL.tsv... > scaling.svg
BEGIN {
	FS = "\t"
	W = 440; H = 300		# one panel's plot area
	L = 70; T = 40; GAP = 110	# margins
	split("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #7f7f7f #17becf", colour, " ")
}
FNR == 1 { k++ }
$1 == "kernel" { kernel[k] = $2 }
$1 == "clock" && $2 ~ /jiffies/ {
	coarse[k] = $2
	undrawn = undrawn (undrawn == "" ? "" : "; ") kernel[k] " (clock " $2 ")"
}
$1 == "scale" && !(k in coarse) {
	s = $2 == "dense" ? 1 : 2
	line = kernel[k] " " $3
	if (!((s, line) in seen)) {
		seen[s, line] = 1
		lines[s, ++nl[s]] = line
		if (!(line in lcolour))
			lcolour[line] = colour[(++nc - 1) % 9 + 1]
	}
	n = ++np[s, line]
	px[s, line, n] = $4
	py[s, line, n] = $5 / 1e6
	if (!((s, "xmin") in lim) || $4 < lim[s, "xmin"]) lim[s, "xmin"] = $4
	if (!((s, "xmax") in lim) || $4 > lim[s, "xmax"]) lim[s, "xmax"] = $4
	if ($5 / 1e6 > lim[s, "ymax"]) lim[s, "ymax"] = $5 / 1e6
}
function lg(v) { return log(v) / log(2) }
function X(s, v) {
	if (lim[s, "xmax"] == lim[s, "xmin"])
		return ox[s] + W / 2
	return ox[s] + (lg(v) - lg(lim[s, "xmin"])) * W / (lg(lim[s, "xmax"]) - lg(lim[s, "xmin"]))
}
function Y(s, v) { return T + H - v * H / ymax[s] }
function xlabel(s, v) {
	if (s == 1)
		return v >= 1024 ? sprintf("%dK", v / 1024) : v
	if (v >= 2 ^ 40) return sprintf("%d TiB", v / 2 ^ 40)
	return sprintf("%d GiB", v / 2 ^ 30)
}
function nice(v,    m) {
	m = 1
	while (m * 10 < v) m *= 10
	if (v <= m * 2) return m * 2
	if (v <= m * 5) return m * 5
	return m * 10
}
END {
	legend = T + H + 60 + 16 * (nl[1] > nl[2] ? nl[1] : nl[2])
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", L + 2 * W + GAP + 30, legend + (undrawn != "" ? 20 : 0)
	printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	title[1] = "dense: time against resident pages"
	title[2] = "sparse: time against virtual size (1000 pages)"
	for (s = 1; s <= 2; s++) {
		ox[s] = L + (s - 1) * (W + GAP)
		ymax[s] = nice(lim[s, "ymax"] > 0 ? lim[s, "ymax"] : 1)
		printf "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", ox[s], T - 15, title[s]
		printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>\n", ox[s], T, W, H
		for (i = 0; i <= 4; i++) {
			yv = ymax[s] * i / 4
			printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ox[s], Y(s, yv), ox[s] + W, Y(s, yv)
			printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ox[s] - 5, Y(s, yv) + 4, yv
		}
		printf "<text x=\"%d\" y=\"%d\" transform=\"rotate(-90 %d %d)\" text-anchor=\"middle\">ms</text>\n", ox[s] - 45, T + H / 2, ox[s] - 45, T + H / 2
		for (j = 1; j <= nl[s]; j++) {
			line = lines[s, j]
			pts = ""
			for (n = 1; n <= np[s, line]; n++) {
				pts = pts sprintf("%.1f,%.1f ", X(s, px[s, line, n]), Y(s, py[s, line, n]))
				printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", X(s, px[s, line, n]), Y(s, py[s, line, n]), lcolour[line]
				if (j == 1)
					printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", X(s, px[s, line, n]), T + H + 16, xlabel(s, px[s, line, n])
			}
			printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", pts, lcolour[line]
			printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>\n", ox[s], T + H + 40 + 16 * (j - 1), ox[s] + 20, T + H + 40 + 16 * (j - 1), lcolour[line]
			printf "<text x=\"%d\" y=\"%d\">%s</text>\n", ox[s] + 26, T + H + 44 + 16 * (j - 1), line
		}
		printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", ox[s] + W / 2, T + H + 30, s == 1 ? "resident 4 KiB pages" : "VMA size"
	}
	if (undrawn != "")
		printf "<text x=\"%d\" y=\"%d\">not drawn, times in steps of a tick: %s</text>\n", L, legend + 4, undrawn
	print "</svg>"
}
