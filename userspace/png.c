// SPDX-License-Identifier: GPL-2.0
/*
 * The PNG writer of the pictures: an 8-bit palette PNG, its pixels
 * compressed by zlib's deflate as they come.  Every text line or row of
 * cells is a band of PMAPS_PNG_LINE_PX pixel rows drawn and compressed in
 * turn, so memory stays one band (and zlib's window), whatever the size
 * of the picture.  Text uses the 6x10 font of map_font.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "map_font.h"
#include "png.h"

#define LINE_PX		PMAPS_PNG_LINE_PX
#define GLYPH_PX	PMAPS_PNG_GLYPH_PX
#define IDAT_MAX	65536		/* compressed bytes an IDAT chunk holds */

/* a line of text: a blank pixel row, a glyph, at least one more */
_Static_assert(1 + FONT_H < LINE_PX, "the font fits a line");
_Static_assert(GLYPH_PX == FONT_W, "a character advances by its glyph");

/* The glyph of ch; a byte outside printable ASCII is drawn as '?'. */
static const unsigned char *glyph_rows(char ch)
{
	unsigned char c = (unsigned char)ch;

	if (c < FONT_FIRST || c > FONT_LAST)
		c = '?';
	return font_6x10[c - FONT_FIRST];
}

struct pmaps_png {
	FILE *f;
	unsigned int width, height;
	unsigned char *band;		/* width * LINE_PX palette indexes */
	z_stream z;			/* deflate, from the first pixel row */
	bool z_open;
	bool z_failed;			/* deflate said no: the image is cut */
	unsigned char out[IDAT_MAX];	/* compressed, waiting for its chunk */
};

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* One chunk: length, type, data and zlib's CRC-32 of type and data. */
static void png_chunk(struct pmaps_png *png, const char *type,
		      const unsigned char *data, size_t len)
{
	unsigned char b[4];
	uLong crc;

	put_be32(b, (uint32_t)len);
	fwrite(b, 1, 4, png->f);
	fwrite(type, 1, 4, png->f);
	crc = crc32(0, (const Bytef *)type, 4);
	if (len) {
		fwrite(data, 1, len, png->f);
		crc = crc32(crc, data, (uInt)len);
	}
	put_be32(b, (uint32_t)crc);
	fwrite(b, 1, 4, png->f);
}

/*
 * Compress n bytes (none, with finish, to end the stream), writing each
 * full output buffer as an IDAT chunk, and at the end what is left.
 */
static void png_deflate(struct pmaps_png *png, const unsigned char *p,
			size_t n, bool finish)
{
	int ret;

	if (png->z_failed)
		return;
	png->z.next_in = (Bytef *)p;
	png->z.avail_in = (uInt)n;
	do {
		ret = deflate(&png->z, finish ? Z_FINISH : Z_NO_FLUSH);
		if (ret == Z_STREAM_ERROR) {
			png->z_failed = true;
			return;
		}
		if (!png->z.avail_out || (finish && ret == Z_STREAM_END)) {
			png_chunk(png, "IDAT", png->out,
				  sizeof(png->out) - png->z.avail_out);
			png->z.next_out = png->out;
			png->z.avail_out = sizeof(png->out);
		}
	} while (png->z.avail_in || (finish && ret != Z_STREAM_END));
}

static void png_data(struct pmaps_png *png, const unsigned char *p, size_t n)
{
	png_deflate(png, p, n, false);
}

static void png_begin(struct pmaps_png *png, const unsigned char *rgb,
		      size_t ncolors)
{
	static const unsigned char signature[8] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
	};
	unsigned char ihdr[13], plte[256 * 3];
	size_t n = PMAPS_PNG_COLORS + ncolors;

	fwrite(signature, 1, sizeof(signature), png->f);
	put_be32(ihdr, png->width);
	put_be32(ihdr + 4, png->height);
	ihdr[8] = 8;		/* bits per palette index */
	ihdr[9] = 3;		/* colour type: palette */
	ihdr[10] = 0;		/* deflate */
	ihdr[11] = 0;		/* adaptive filtering, each row "None" */
	ihdr[12] = 0;		/* not interlaced */
	png_chunk(png, "IHDR", ihdr, sizeof(ihdr));
	memset(plte, 0, sizeof(plte));
	memset(plte + 3 * PMAPS_PNG_TEXT, 0xd0, 3);
	memcpy(plte + 3 * PMAPS_PNG_COLORS, rgb, 3 * ncolors);
	png_chunk(png, "PLTE", plte, 3 * n);
	png->z.next_out = png->out;
	png->z.avail_out = sizeof(png->out);
	memset(png->band, PMAPS_PNG_BACKGROUND, (size_t)png->width * LINE_PX);
}

static void png_free(struct pmaps_png *png)
{
	if (png && png->z_open)
		deflateEnd(&png->z);
	if (png)
		free(png->band);
	free(png);
}

struct pmaps_png *pmaps_png_open(FILE *f, unsigned int width,
				 unsigned int height,
				 const unsigned char *rgb, size_t ncolors,
				 char *err, size_t errlen)
{
	struct pmaps_png *png;

	/* a palette of 8-bit indexes */
	if (ncolors > 256 - PMAPS_PNG_COLORS) {
		snprintf(err, errlen, "%zu colours, expected at most %d",
			 ncolors, 256 - PMAPS_PNG_COLORS);
		return NULL;
	}
	png = malloc(sizeof(*png));
	if (!png) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(png, 0, offsetof(struct pmaps_png, out));
	if (deflateInit(&png->z, Z_DEFAULT_COMPRESSION) != Z_OK) {
		snprintf(err, errlen, "out of memory");
		png_free(png);
		return NULL;
	}
	png->z_open = true;
	png->f = f;
	png->width = width;
	png->height = height;
	png->band = malloc((size_t)png->width * LINE_PX);
	if (!png->band) {
		snprintf(err, errlen, "out of memory");
		png_free(png);
		return NULL;
	}
	png_begin(png, rgb, ncolors);
	return png;
}

/* Write the band, each pixel row with filter type 0, and clear it. */
void pmaps_png_band(struct pmaps_png *png)
{
	static const unsigned char filter_none;
	unsigned int y;

	for (y = 0; y < LINE_PX; y++) {
		png_data(png, &filter_none, 1);
		png_data(png, png->band + (size_t)y * png->width, png->width);
	}
	memset(png->band, PMAPS_PNG_BACKGROUND, (size_t)png->width * LINE_PX);
}

void pmaps_png_fill(struct pmaps_png *png, unsigned int x, unsigned int y,
		    unsigned int w, unsigned int h, unsigned char color)
{
	unsigned int i;

	if (x >= png->width)
		return;
	if (w > png->width - x)
		w = png->width - x;
	for (i = y; i < y + h && i < LINE_PX; i++)
		memset(png->band + (size_t)i * png->width + x, color, w);
}

void pmaps_png_text(struct pmaps_png *png, unsigned int x, const char *s)
{
	unsigned int r, b;

	for (; *s && x + GLYPH_PX <= png->width; s++, x += GLYPH_PX) {
		const unsigned char *rows = glyph_rows(*s);

		for (r = 0; r < FONT_H; r++)
			for (b = 0; b < FONT_W; b++)
				if (rows[r] & 0x80 >> b)
					png->band[(size_t)(1 + r) * png->width +
						  x + b] = PMAPS_PNG_TEXT;
	}
}

void pmaps_png_text_line(struct pmaps_png *png, const char *s)
{
	pmaps_png_text(png, 0, s);
	pmaps_png_band(png);
}

int pmaps_png_error(const struct pmaps_png *png)
{
	return ferror(png->f);
}

int pmaps_png_close(struct pmaps_png *png, char *err, size_t errlen)
{
	int ret = -1;

	png_deflate(png, NULL, 0, true);
	png_chunk(png, "IEND", NULL, 0);
	if (png->z_failed)
		snprintf(err, errlen, "deflate failed: %s",
			 png->z.msg ? png->z.msg : "stream error");
	else if (fflush(png->f) || ferror(png->f))
		ret = errno ? errno : EIO;
	else
		ret = 0;
	png_free(png);
	return ret;
}
