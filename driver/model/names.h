/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: name lookup for the model's enums (names.c).
 *
 * Each enum with user-visible names (policy, prefetch, writeback, FTL,
 * stripe) has one table of names indexed by value; CXD_NAMED_ENUM()
 * generates its _name() and _parse() functions from that table.
 */
#ifndef CXDVIRT_MODEL_NAMES_H
#define CXDVIRT_MODEL_NAMES_H

#include "cxdvirt/model.h"

/**
 * cxd_name_index() - index of @name in @names.
 * @names: [@n] names (NULL entries are skipped).
 * @n:     entries in @names.
 * @name:  exact name to look up, no trailing newline; may be NULL.
 *
 * Return: the index, or -1 if absent.
 */
int cxd_name_index(const char *const *names, unsigned int n, const char *name);

/**
 * cxd_name_at() - entry @i of @names.
 * @names: [@n] names.
 * @n:     entries in @names.
 * @i:     index.
 *
 * Return: the name, or NULL if @i >= @n.
 */
const char *cxd_name_at(const char *const *names, unsigned int n,
			unsigned int i);

/*
 * CXD_NAMED_ENUM(prefix, type, names, nr) defines prefix_name(type) and
 * prefix_parse(const char *) over the table @names of @nr entries (their
 * kernel-doc is with their declarations in include/cxdvirt/model.h).
 */
#define CXD_NAMED_ENUM(prefix, type, names, nr)				\
const char *prefix##_name(type v)					\
{									\
	return cxd_name_at(names, nr, (unsigned int)v);			\
}									\
int prefix##_parse(const char *name)					\
{									\
	return cxd_name_index(names, nr, name);				\
}

#endif /* CXDVIRT_MODEL_NAMES_H */
