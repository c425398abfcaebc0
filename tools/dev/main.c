// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-dev: configure emulated CXL-SSDs (the cxdvirt module) through
 * configfs, and read their state from sysfs. Modelled on daxctl:
 *
 *	cxdvirt-dev [--json|-j] <verb> [options] [args]
 *
 * Exit codes: 0 success, 1 error (the kernel refused, no such device, ...),
 * 2 usage error (nothing was changed).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cxdvirt-dev.h"

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv, struct verb_ctx *ctx);
	const char *summary;
	const char *usage;	/* the rest of the per-verb help */
};

static const struct verb verbs[] = {
	{ "list", cmd_list, "list devices, their attributes and statistics",
	  "usage: " PROG " list [--json] [-u] [<name>...]\n"
	  "\n"
	  "Every device (or the named ones): name, index, power, all configfs\n"
	  "attributes and, when powered, cache_used, image_pages and the stats\n"
	  "counters.\n"
	  "\n"
	  "  -j, --json    print a JSON array\n"
	  "  -u, --human   sizes and times with units (64 MiB, 3.00 us)\n" },
	{ "create", cmd_create, "create a device (mkdir + attributes)",
	  "usage: " PROG " create <name> [options] [key=value...]\n"
	  "\n"
	  "Make the configfs directory <name>, then write, in this order: the\n"
	  "options below, the preset, each key=value (so they override the\n"
	  "preset), and power=1 with --enable. If the kernel refuses a write the\n"
	  "directory is removed again. <name>: 1..31 of A-Z a-z 0-9 _ . -\n"
	  "\n"
	  "  --capacity SIZE      device size, bytes (K/M/G/T suffix: binary)\n"
	  "  --cache-size SIZE    device DRAM cache, bytes\n"
	  "  --preset NAME        NAND timing and geometry, see below\n"
	  "  --backing-node N     NUMA node of the backing memory, -1 = any\n"
	  "  --phys-addr ADDR     start of a memmap=-reserved range, bytes\n"
	  "  --mode devdax|node   devdax (/dev/cxdvirtN) or node (a NUMA node)\n"
	  "  --target-node N      node mode: the node the memory goes to\n"
	  "  --enable             power the device on (prints /dev/cxdvirtN, or\n"
	  "                       in node mode the dax device)\n"
	  "  --fix-auto-online    node mode, with --enable: see 'online --help'\n"
	  "  -j, --json           print the device as JSON afterwards\n"
	  "\n"
	  "Presets (the model's table; each sets every NAND attribute, stripe and\n"
	  "xfer_model included):\n" },
	{ "set", cmd_set, "write attributes of a device",
	  "usage: " PROG " set <name> key=value...\n"
	  "\n"
	  "Write the attributes in the order given; stop at the first one the\n"
	  "kernel refuses and say which were applied. Sizes take K/M/G/T.\n"
	  "\n"
	  "  -j, --json    print the device as JSON afterwards\n" },
	{ "enable", cmd_enable, "power a device on (power=1)",
	  "usage: " PROG " enable <name> [--fix-auto-online]\n"
	  "\n"
	  "Write power=1, which creates /dev/cxdvirtN, and print that path. In\n"
	  "node mode print the dax device instead (e.g. dax0.0), after the\n"
	  "auto-online check of 'online --help'.\n"
	  "\n"
	  "  -j, --json    print the device as JSON instead\n" },
	{ "disable", cmd_disable, "power a device off (power=0)",
	  "usage: " PROG " disable <name>\n"
	  "\n"
	  "Write power=0, which removes /dev/cxdvirtN; fails with EBUSY while\n"
	  "it is open or mapped.\n"
	  "\n"
	  "  -j, --json    print the device as JSON afterwards\n" },
	{ "destroy", cmd_destroy, "power off and remove a device",
	  "usage: " PROG " destroy <name>\n"
	  "\n"
	  "Write power=0 if the device is powered, then remove its directory.\n" },
	{ "online", cmd_online, "node mode: online the memory on the target node",
	  "usage: " PROG " online <name> [--fix-auto-online] [--json]\n"
	  "\n"
	  "A powered node-mode device: bind its dax device (sysfs dax_device) to\n"
	  "kmem and online every memory block as ZONE_MOVABLE memory of the\n"
	  "target node, as 'daxctl reconfigure-device --mode=system-ram' does.\n"
	  "Prints '<dax> online: <size> on node <N>'.\n"
	  "\n"
	  "Refused when /sys/devices/system/memory/auto_online_blocks is online\n"
	  "or online_kernel: the kernel would online the memory as kernel memory,\n"
	  "which may never go offline, and the device could not be powered off.\n"
	  "\n"
	  "  --fix-auto-online   set auto_online_blocks to offline instead\n"
	  "  -j, --json          print the device as JSON\n" },
	{ "offline", cmd_offline, "node mode: offline the memory",
	  "usage: " PROG " offline <name> [--json]\n"
	  "\n"
	  "Offline the memory of a node-mode device, as 'daxctl offline-memory'\n"
	  "does. Pages in use move to other nodes; if some cannot move the\n"
	  "kernel refuses (EBUSY) and the memory stays online. Afterwards the\n"
	  "device can be powered off.\n"
	  "\n"
	  "  -j, --json    print the device as JSON\n" },
	{ "stats", cmd_stats, "print (and reset) a device's counters",
	  "usage: " PROG " stats <name> [--reset] [--json] [-u]\n"
	  "\n"
	  "Print the counters in /sys/class/cxdvirt/cxdvirtN/stats/ of a\n"
	  "powered device. mean_miss_ns and mean_model_ns are computed here\n"
	  "(total / misses).\n"
	  "\n"
	  "  -r, --reset   after printing, zero the counters (stats/reset)\n"
	  "  -j, --json    print a JSON object\n"
	  "  -u, --human   times with units\n" },
	{ "doctor", cmd_doctor, "check the host for cxdvirt and for measurements",
	  "usage: " PROG " doctor [--json]\n"
	  "\n"
	  "Check, and for each problem say what is wrong and the command that\n"
	  "fixes it: the module (installed, loadable: modules_disabled, lockdown,\n"
	  "signature enforcement; loaded), configfs; every memmap= on the kernel\n"
	  "command line (reserved in /proc/iomem, usable RAM in the firmware's\n"
	  "e820 map, 2 MiB and memory-block aligned, GRUB escaping failures);\n"
	  "node mode (possible nodes without memory, dax_hmem, device_dax, kmem,\n"
	  "auto_online_blocks); and what changes a measurement: numa_balancing,\n"
	  "THP, the clocksource, the CPU frequency governor, the IOMMU mode.\n"
	  "Reads only. Exit status: 0 all good, 1 a problem, 2 warnings only.\n"
	  "Roots: CXDVIRT_PROC, CXDVIRT_SYS, CXDVIRT_MODULES (see --help).\n"
	  "\n"
	  "  -j, --json    print a JSON object (checks, failures, warnings)\n" },
	{ "calibrate", cmd_calibrate, "measure the fault cost to hide in misses",
	  "usage: " PROG " calibrate <name> [--faults N] [--dry-run] [--json]\n"
	  "\n"
	  "A miss should cost the modeled time, not the model plus a page fault.\n"
	  "The module counts a miss from the fault's entry and ends its wait\n"
	  "fault_exit_ns early, for what follows the wait (the handler's return,\n"
	  "the PTE, the return to user space). This measures that remainder on\n"
	  "every CPU the command may run on, with faults on resident lines:\n"
	  "the user's mean time per fault (clock_gettime, its pair cost\n"
	  "subtracted) less the module's mean for the same faults\n"
	  "(stats/minor_fault_ns_total / minor_faults), median of 7 rounds. It\n"
	  "also covers the exception's delivery before the module's entry stamp.\n"
	  "The smallest CPU's value (0 if negative; at most 1000000 ns) is\n"
	  "written to the device's fault_exit_ns, which survives power cycles\n"
	  "but not destroy or rmmod: give it to a new device with\n"
	  "'create NAME fault_exit_ns=V'. The device must be powered and\n"
	  "otherwise unused; up to N lines become resident and show in its\n"
	  "statistics: after calibrating, reset them (the stats verb) or\n"
	  "power-cycle before an experiment.\n"
	  "Node mode (node_latency on, memory online): a miss waits in the\n"
	  "task's return to user space; this binds (2 x cache lines + N) pages\n"
	  "to the node, writes and reads them, then times N reads of a cyclic scan\n"
	  "per round, each a miss, against node_latency/waited_ns_total /\n"
	  "waited_accesses. Every read must miss: prefetch none, policy fifo or\n"
	  "lru, no other user of the node. Caches above 512 MiB: refused.\n"
	  "\n"
	  "  -n, --faults N  faults (node mode: misses) per round, 16..65536;\n"
	  "                  devdax: at most half the cache's lines (default 256)\n"
	  "      --dry-run   measure and print, do not write fault_exit_ns (no -d)\n"
	  "  -j, --json      print a JSON object\n" },
	{ "acpi-tables", cmd_acpi_tables, "node mode without an empty node: SRAT+HMAT override",
	  "usage: " PROG " acpi-tables [--out FILE] [--range SIZE@ADDR]... [--preset NAME] [--json]\n"
	  "\n"
	  "Write an early-initrd cpio (kernel/firmware/acpi/SRAT.aml, HMAT.aml)\n"
	  "that gives each reserved range a NUMA node: the machine's SRAT\n"
	  "(/sys/firmware/acpi/tables/SRAT, root only) with the range cut out of\n"
	  "its node and given a new hot-pluggable, memory-only proximity domain;\n"
	  "and an HMAT with the modeled device's read/write latency and bandwidth\n"
	  "from every CPU domain to each new one (nodeN/access0/initiators/).\n"
	  "The SRAT keeps the firmware's OEM IDs, its OEM revision goes up by one.\n"
	  "Needs CONFIG_ACPI_TABLE_UPGRADE (Debian: yes). A machine that has an\n"
	  "HMAT already is refused (merging is not implemented).\n"
	  "\n"
	  "  -o, --out FILE        the cpio (default cxdvirt-acpi.cpio)\n"
	  "  -r, --range SIZE@ADDR a reserved range (repeatable; default: every\n"
	  "                        memmap=SIZE$ADDR on the kernel command line)\n"
	  "  -p, --preset NAME     the modeled device's figures (default znand)\n"
	  "  -j, --json            print what was written as JSON\n" },
};
#define NR_VERBS (sizeof(verbs) / sizeof(verbs[0]))

static const struct verb *verb_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_VERBS; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

/**
 * verb_help() - print the help of @verb to stdout.
 * @verb:	a verb name from the table.
 */
void verb_help(const char *verb)
{
	const struct verb *v = verb_find(verb);

	if (!v)
		return;
	fputs(v->usage, stdout);
	if (!strcmp(verb, "create"))
		preset_print_all(stdout);
}

static void help(void)
{
	size_t i;

	printf("usage: " PROG " [--json|-j] <verb> [options] [args]\n"
	       "\n"
	       "Configure cxdvirt emulated CXL-SSDs (configfs) and read their\n"
	       "state (sysfs).\n"
	       "\n"
	       "Verbs:\n");
	for (i = 0; i < NR_VERBS; i++)
		printf("  %-12s %s\n", verbs[i].name, verbs[i].summary);
	printf("\n"
	       "Options:\n"
	       "  -j, --json      JSON output (also accepted after the verb)\n"
	       "  -h, --help      this help; '" PROG " <verb> --help' for a verb\n"
	       "  -V, --version   print the version\n"
	       "\n"
	       "Environment:\n"
	       "  CXDVIRT_CONFIGFS  configfs root (/sys/kernel/config/cxdvirt)\n"
	       "  CXDVIRT_SYSFS     sysfs class root (/sys/class/cxdvirt)\n"
	       "  CXDVIRT_MEMORY_SYSFS  memory hotplug root (/sys/devices/system/memory)\n"
	       "  CXDVIRT_PROC      doctor: proc root (/proc)\n"
	       "  CXDVIRT_SYS       doctor: sysfs root (/sys)\n"
	       "  CXDVIRT_MODULES   doctor: modules directory (/lib/modules/RELEASE)\n"
	       "\n"
	       "Exit status: 0 success, 1 error, 2 usage error (doctor: 2 warnings only).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "help",	no_argument, NULL, 'h' },
		{ "version",	no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static char prog_verb[64];
	struct verb_ctx ctx = { .json = false };
	const struct verb *v;
	int c;

	cxu_set_prog(PROG);
	/* '+': stop at the verb, its options are its own. */
	while ((c = getopt_long(argc, argv, "+jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j': ctx.json = true; break;
		case 'h': help(); return EXIT_OK;
		case 'V': printf(PROG " " CXDVIRT_VERSION "\n"); return EXIT_OK;
		default: return cxu_usage_err(NULL, NULL);
		}
	}
	if (optind >= argc)
		return cxu_usage_err(NULL, "missing verb");
	if (!strcmp(argv[optind], "help")) {
		if (optind + 1 >= argc) {
			help();
			return EXIT_OK;
		}
		if (!verb_find(argv[optind + 1]))
			return cxu_usage_err(NULL, "unknown verb '%s'", argv[optind + 1]);
		verb_help(argv[optind + 1]);
		return EXIT_OK;
	}
	v = verb_find(argv[optind]);
	if (!v)
		return cxu_usage_err(NULL, "unknown verb '%s'", argv[optind]);
	argc -= optind;
	argv += optind;
	/* getopt's own messages name argv[0]: "cxdvirt-dev create: ..." */
	snprintf(prog_verb, sizeof(prog_verb), PROG " %s", v->name);
	argv[0] = prog_verb;
	optind = 0;	/* restart getopt for the verb's own options */
	return v->fn(argc, argv, &ctx);
}
