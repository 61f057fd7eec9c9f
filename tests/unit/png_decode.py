# SPDX-License-Identifier: GPL-2.0
"""
The PNG checks of test_map.sh, test_ages.sh and test_heap.sh: decode a
PNG as a decoder would (signature, chunk CRCs, IHDR of an 8-bit palette
image, the zlib stream, a filter byte of 0 a row), failing an assert
where it is not; run as a script, count the pixels of some colours.
"""
import struct
import zlib


def decode(path):
    """(width, height, PLTE's bytes, a bytes of palette indexes a row)"""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "signature"
    pos, chunks = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert zlib.crc32(kind + body) == crc, "CRC of %r" % kind
        chunks.append((kind, body))
        pos += 12 + n
    kinds = [k for k, _ in chunks]
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND", kinds
    w, h, depth, ctype, comp, filt, lace = struct.unpack(">IIBBBBB",
                                                          chunks[0][1])
    assert (depth, ctype, comp, filt, lace) == (8, 3, 0, 0, 0)
    plte = dict(chunks)[b"PLTE"]
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    assert len(raw) == h * (w + 1), "%d bytes for %dx%d" % (len(raw), w, h)
    rows = []
    for y in range(h):
        assert raw[y * (w + 1)] == 0, "filter of row %d" % y
        rows.append(raw[y * (w + 1) + 1:(y + 1) * (w + 1)])
    return w, h, plte, rows


if __name__ == "__main__":
    # png_decode.py FILE RGB...: "WxH", then "RGB PIXELS" for each colour
    import sys
    w, h, plte, rows = decode(sys.argv[1])
    count = {}
    for row in rows:
        for i in row:
            rgb = plte[3 * i:3 * i + 3].hex()
            count[rgb] = count.get(rgb, 0) + 1
    print("%dx%d" % (w, h))
    for rgb in sys.argv[2:]:
        print(rgb, count.get(rgb, 0))
