/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers and sizes on the tools' command lines, one rule for all:
 *
 * the whole string is one number, decimal or 0x-hex (a leading 0 does not
 * mean octal), with no sign, no blanks, no exponent and no decimals. A size
 * may end in one binary suffix K, M, G or T, either case (1K = 1024).
 * A value above 2^64 - 1 is an error. The caller checks the range.
 */
#ifndef CXU_NUM_H
#define CXU_NUM_H

#include <stddef.h>
#include <stdint.h>

/**
 * cxu_parse_size() - a size in bytes: "4096", "0x1000", "4K", "64m", "1G".
 * @s:		the text.
 * @out:	the size in bytes; unchanged on error.
 *
 * Return: 0, -EINVAL for anything but a number with an optional K/M/G/T
 * suffix, -ERANGE if the bytes do not fit in 64 bits.
 */
int cxu_parse_size(const char *s, uint64_t *out);

/**
 * cxu_parse_u64() - an unsigned number, decimal or 0x-hex, no suffix.
 * @s:		the text.
 * @out:	the value (the caller knows its unit); unchanged on error.
 *
 * Return: 0, -EINVAL on bad syntax, -ERANGE above 2^64 - 1.
 */
int cxu_parse_u64(const char *s, uint64_t *out);

/**
 * cxu_parse_s64() - a signed number: an optional '-', then cxu_parse_u64().
 * @s:		the text.
 * @out:	the value; unchanged on error.
 *
 * Return: 0, -EINVAL on bad syntax, -ERANGE outside int64_t.
 */
int cxu_parse_s64(const char *s, int64_t *out);

/**
 * cxu_fmt_size() - a size for people: "4 KiB", "64 MiB", "1.50 GiB".
 * @bytes:	the size in bytes.
 * @buf:	where to write; @len its size in bytes.
 * @len:	see @buf.
 *
 * Exact multiples print without decimals. Return: @buf.
 */
const char *cxu_fmt_size(uint64_t bytes, char *buf, size_t len);

/**
 * cxu_fmt_ns() - a time for people: "800 ns", "3.00 us", "1.50 ms", "2.00 s".
 * @ns:		the time in ns.
 * @buf:	where to write; @len its size in bytes.
 * @len:	see @buf.
 *
 * Return: @buf.
 */
const char *cxu_fmt_ns(uint64_t ns, char *buf, size_t len);

#endif /* CXU_NUM_H */
