/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PNG writer of the pictures (pmaps map --png, pmaps heap --png): an
 * 8-bit palette image drawn and compressed a band of text-line height at
 * a time, with text in the 6x10 font of map_font.h.
 */
#ifndef PMAPS_PNG_H
#define PMAPS_PNG_H

#include <stddef.h>
#include <stdio.h>

#define PMAPS_PNG_LINE_PX	12		/* height of a band */
#define PMAPS_PNG_GLYPH_PX	6		/* advance of a character */
#define PMAPS_PNG_MAX_HEIGHT	(1u << 24)
#define PMAPS_PNG_MAX_TEXT_CHARS 160		/* longer lines of text are cut */

/* Palette indexes every image has; the caller's colours follow. */
enum { PMAPS_PNG_BACKGROUND, PMAPS_PNG_TEXT, PMAPS_PNG_COLORS };

struct pmaps_png;

/*
 * Start a width x height image on f, its palette the two above and then
 * the caller's ncolors colours (RGB, 3 bytes each), and write its header.
 * NULL with a message in err if it cannot be made (out of memory).
 */
struct pmaps_png *pmaps_png_open(FILE *f, unsigned int width,
				 unsigned int height,
				 const unsigned char *rgb, size_t ncolors,
				 char *err, size_t errlen);

/* Fill a rectangle of the band, clipped to it, with palette index color. */
void pmaps_png_fill(struct pmaps_png *png, unsigned int x, unsigned int y,
		    unsigned int w, unsigned int h, unsigned char color);

/* Text on the band from pixel column x, clipped at the right edge. */
void pmaps_png_text(struct pmaps_png *png, unsigned int x, const char *s);

/* Write the band, and clear it for the next. */
void pmaps_png_band(struct pmaps_png *png);

/* A band of text alone. */
void pmaps_png_text_line(struct pmaps_png *png, const char *s);

/* Writing the image's file has failed. */
int pmaps_png_error(const struct pmaps_png *png);

/*
 * End the image and free png.  Return 0; -1 with a message in err if
 * deflate failed; or, if writing the file failed, the errno value.
 */
int pmaps_png_close(struct pmaps_png *png, char *err, size_t errlen);

#endif /* PMAPS_PNG_H */
