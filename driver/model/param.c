// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt: the one parser and formatter of parameter values, shared by the
 * module (configfs), cxdvirt-sim, cxdvirt-dev and the tools' library, so
 * that a value means the same everywhere: decimal or 0x-hex, sizes with
 * one K, M, G or T suffix (binary multiples, either case), enums by name.
 * Declared in include/cxdvirt/params.h.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cxdvirt/params.h"

/*
 * Exact string equality. Not str_eq(): this file is also in the tools'
 * library (libcxu.a), which has no other model object.
 */
static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* One trailing newline dropped from [@s, @s + *@len): configfs writes. */
static void drop_newline(const char *s, size_t *len)
{
	if (*len && s[*len - 1] == '\n')
		(*len)--;
}

/* cxd_parse_u64() on exactly @len bytes (no newline dropped). */
static int parse_u64(const char *s, size_t len, bool suffix, uint64_t *out)
{
	static const char sfx[] = "KMGT";
	unsigned int base = 10, shift = 0, i, n = 0;
	uint64_t v = 0;
	int d;

	if (suffix && len > 1) {
		char c = s[len - 1];

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		for (i = 0; i < 4; i++)
			if (c == sfx[i])
				shift = 10 * (i + 1);
		if (shift)
			len--;
	}
	i = 0;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < len; i++, n++) {
		d = cxd_hex_digit(s[i]);
		if (d < 0 || (unsigned int)d >= base)
			return CXD_PARSE_SYNTAX;
		if (v > (~(uint64_t)0 - (uint64_t)d) / base)
			return CXD_PARSE_RANGE;
		v = v * base + (uint64_t)d;
	}
	if (!n)
		return CXD_PARSE_SYNTAX;
	if (shift && v > (~(uint64_t)0 >> shift))
		return CXD_PARSE_RANGE;
	*out = v << shift;
	return 0;
}

/**
 * cxd_parse_u64() - a number as every interface of the project reads it.
 * @s:		text, @len bytes (need not be NUL-terminated).
 * @len:	bytes of @s; one trailing newline is ignored.
 * @suffix:	accept one trailing K, M, G or T (either case): KiB, MiB,
 *		GiB, TiB.
 * @out:	the value (bytes for a size); unchanged on error.
 *
 * Decimal, or hex after "0x"/"0X"; no sign, no spaces, no leading "+", no
 * octal (a leading 0 is decimal).
 *
 * Return: 0; CXD_PARSE_SYNTAX for empty text, a character that does not
 * belong (a NUL included) or a suffix where none is accepted;
 * CXD_PARSE_RANGE if the value does not fit 64 bits.
 */
int cxd_parse_u64(const char *s, size_t len, bool suffix, uint64_t *out)
{
	drop_newline(s, &len);
	return parse_u64(s, len, suffix, out);
}

/**
 * cxd_parse_s64() - a signed decimal or 0x-hex number: cxd_parse_u64()
 * (no suffix) after an optional '-'.
 * @s:		text, @len bytes.
 * @len:	bytes of @s; one trailing newline is ignored.
 * @out:	the value; unchanged on error.
 *
 * Return: 0, CXD_PARSE_SYNTAX or CXD_PARSE_RANGE (outside int64_t).
 */
int cxd_parse_s64(const char *s, size_t len, int64_t *out)
{
	uint64_t v;
	bool neg;
	int ret;

	drop_newline(s, &len);
	neg = len && s[0] == '-';
	ret = parse_u64(s + neg, len - neg, false, &v);
	if (ret)
		return ret;
	if (v > (((uint64_t)1 << 63) - 1) + neg)
		return CXD_PARSE_RANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/**
 * cxd_parse_flag() - a flag as every interface of the project reads it:
 * 0, 1, off or on, exactly (no "yes", no "0x1", nothing after it).
 * @s:		text, @len bytes; one trailing newline is ignored.
 * @len:	bytes of @s.
 * @on:		the flag; unchanged on error.
 *
 * The flag parameters, configfs power and sysfs stats/reset use it.
 * Return: 0, or CXD_PARSE_SYNTAX.
 */
int cxd_parse_flag(const char *s, size_t len, bool *on)
{
	static const char *const words[] = { "0", "1", "off", "on" };
	size_t i, k;

	if (len && s[len - 1] == '\n')
		len--;
	for (k = 0; k < 4; k++) {
		for (i = 0; i < len && words[k][i] && words[k][i] == s[i]; i++)
			;
		if (i == len && !words[k][i]) {
			*on = k & 1;
			return 0;
		}
	}
	return CXD_PARSE_SYNTAX;
}

/**
 * cxd_param_parse() - the text written for parameter @p, as its value.
 * @p:		parameter (a row of the table).
 * @s:		text, @len bytes; one trailing newline is ignored.
 * @len:	bytes of @s.
 * @v:		the value; an INT's two's complement; unchanged on error.
 *
 * An enum takes one of its names (or, with CXD_P_NUMALIAS, its decimal
 * index); a bool 0, 1, off or on; an INT a signed number; U32 and U64 an
 * unsigned number, with a suffix if CXD_P_SUFFIX. Syntax and type only:
 * the bounds are cxd_param_bad()'s.
 *
 * Return: NULL, or what the text should have been (one line, for "NAME:
 * not a valid number (...)"-style messages): "unknown", "not a valid
 * number (...)" or "value too large".
 */
const char *cxd_param_parse(const struct cxd_param *p, const char *s,
			    size_t len, uint64_t *v)
{
	char buf[32];
	uint64_t u;
	int64_t sv;
	bool on;
	size_t i;
	int e;

	/* each branch drops the one trailing newline itself */
	switch (p->type) {
	case CXD_PT_BOOL:
		if (cxd_parse_flag(s, len, &on))
			return "unknown";
		*v = on;
		return NULL;
	case CXD_PT_ENUM:
		drop_newline(s, &len);
		if (!len || len >= sizeof(buf))
			return "unknown";
		for (i = 0; i < len; i++) {
			if (!s[i])
				return "unknown";
			buf[i] = s[i];
		}
		buf[len] = '\0';
		for (e = 0; (uint64_t)e <= p->max && p->names(e); e++) {
			if (str_eq(buf, p->names(e))) {
				*v = (uint64_t)e;
				return NULL;
			}
		}
		/* the index: one decimal digit (every such enum has < 10) */
		if ((p->flags & CXD_P_NUMALIAS) && len == 1 && buf[0] >= '0' &&
		    (uint64_t)(buf[0] - '0') <= p->max) {
			*v = (uint64_t)(buf[0] - '0');
			return NULL;
		}
		return "unknown";
	case CXD_PT_INT:
		for (i = 0; i < len; i++)	/* decimal only: no 0x, no -0x */
			if (s[i] == 'x' || s[i] == 'X')
				return "not a valid number (decimal, -1 for none)";
		if (cxd_parse_s64(s, len, &sv) ||
		    sv < -(int64_t)CXD_P_S32_MAX - 1 ||
		    sv > (int64_t)CXD_P_S32_MAX)
			return "not a valid number (decimal, -1 for none)";
		*v = (uint64_t)sv;
		return NULL;
	default:
		if (cxd_parse_u64(s, len, p->flags & CXD_P_SUFFIX, &u))
			return p->flags & CXD_P_SUFFIX ?
			       "not a valid number (decimal or 0x-hex, optional K/M/G/T suffix)" :
			       "not a valid number (decimal or 0x-hex)";
		if (p->type != CXD_PT_U64 && u > CXD_P_U32_MAX)
			return "value too large";
		*v = u;
		return NULL;
	}
}

/* @v in decimal at @buf (@len >= 2), '-' first if @neg. Return: @buf. */
static char *fmt_dec(char *buf, size_t len, uint64_t v, bool neg)
{
	char tmp[24];
	size_t n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg && i + 1 < len)
		buf[i++] = '-';
	while (n && i + 1 < len)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
	return buf;
}

/**
 * cxd_param_format() - value @v of parameter @p as text, the way messages,
 * --help and the tools show it.
 * @p:		parameter.
 * @v:		value (an INT's two's complement).
 * @buf:	where to write; at least 24 bytes hold any value.
 * @len:	bytes of @buf (at least 2); the text is cut to fit.
 *
 * An enum by name (its number if it has none), an INT signed, a
 * CXD_P_SUFFIX size with the largest of K, M, G, T it is a whole multiple
 * of, anything else in decimal.
 *
 * Return: @buf.
 */
char *cxd_param_format(const struct cxd_param *p, uint64_t v, char *buf,
		       size_t len)
{
	static const char sfx[] = "KMGT";
	const char *name;
	size_t n;
	int i;

	if (p->type == CXD_PT_ENUM && v <= p->max) {
		name = p->names((unsigned int)v);
		if (name) {
			for (n = 0; name[n] && n + 1 < len; n++)
				buf[n] = name[n];
			buf[n] = '\0';
			return buf;
		}
	}
	if (p->type == CXD_PT_INT && (int64_t)v < 0)
		return fmt_dec(buf, len, 0 - v, true);
	for (i = 3; (p->flags & CXD_P_SUFFIX) && v && i >= 0; i--) {
		if (!(v & (((uint64_t)1 << (10 * (i + 1))) - 1))) {
			fmt_dec(buf, len - 1, v >> (10 * (i + 1)), false);
			n = 0;
			while (buf[n])
				n++;
			buf[n] = sfx[i];
			buf[n + 1] = '\0';
			return buf;
		}
	}
	return fmt_dec(buf, len, v, false);
}
