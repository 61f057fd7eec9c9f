/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Little-endian fields of the binary files pmaps reads and writes (core
 * dumps, perf.data), a byte at a time: any alignment, any host.
 */
#ifndef PMAPS_LE_H
#define PMAPS_LE_H

#include <stdint.h>

static inline uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static inline uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline void set_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void set_le32(unsigned char *p, uint32_t v)
{
	set_le16(p, (uint16_t)v);
	set_le16(p + 2, (uint16_t)(v >> 16));
}

static inline void set_le64(unsigned char *p, uint64_t v)
{
	set_le32(p, (uint32_t)v);
	set_le32(p + 4, (uint32_t)(v >> 32));
}

#endif
