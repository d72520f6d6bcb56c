/* Unit tests for configless operation's files (src/lib/conf_files.c):
 * what the controller serves (never the key), the node daemon's cache,
 * and --conf-server parsing. */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf_files.h"
#include "fileio.h"
#include "xalloc.h"

static void put(const char *dir, const char *name, const char *data, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
	free(p);
}

static int has(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = access(p, F_OK) == 0;
	free(p);
	return r;
}

static const char *find(const msg_config_files_t *m, const char *name)
{
	for (uint32_t i = 0; i < m->names.n; i++)
		if (!strcmp(m->names.v[i], name))
			return m->data.v[i];
	return NULL;
}

static void test_read(const char *dir)
{
	put(dir, "slurm.conf", "ClusterName=x\n", 14);
	put(dir, "gres.conf", "AutoDetect=off\n", 15);
	put(dir, "slurm.key", "0123456789abcdef0123456789abcdef", 32);
	put(dir, "slurmdbd.conf", "StoragePass=secret\n", 19);
	put(dir, "notes.txt", "x", 1);
	char *conf = xasprintf("%s/slurm.conf", dir), *key = xasprintf("%s/slurm.key", dir);
	msg_config_files_t m;
	char *err = NULL;
	ok(conf_files_read(conf, key, &m, &err) == 0, "served: %s", err ? err : "ok");
	is_int(m.names.n, 2, "slurm.conf and gres.conf only");
	is_str(m.names.v[0], "slurm.conf", "slurm.conf first");
	is_str(find(&m, "gres.conf"), "AutoDetect=off\n", "gres.conf as it is");
	ok(!find(&m, "slurm.key") && !find(&m, "slurmdbd.conf") && !find(&m, "notes.txt"),
	   "never the key, slurmdbd.conf or other files");
	proto_free(MSG_CONFIG_FILES, &m);

	/* the key under a served name (a link) */
	char *hc = xasprintf("%s/health.conf", dir);
	ok(symlink(key, hc) == 0, "health.conf -> slurm.key");
	ok(conf_files_read(conf, key, &m, &err) < 0, "refused");
	ok(err && strstr(err, "health.conf: not served: it is the cluster key"), "why: %s", err);
	ok(m.names.n == 0 && m.data.n == 0, "nothing served");
	free(err);
	unlink(hc);

	/* a NUL byte, a directory under a served name */
	put(dir, "cgroup.conf", "a\0b", 3);
	ok(conf_files_read(conf, key, &m, &err) < 0 && strstr(err, "holds a NUL byte"), "NUL refused");
	free(err);
	char *cg = xasprintf("%s/cgroup.conf", dir);
	unlink(cg);
	ok(mkdir(cg, 0755) == 0, "cgroup.conf a directory");
	ok(conf_files_read(conf, key, &m, &err) < 0 && strstr(err, "not a regular file"),
	   "directory refused");
	free(err);
	rmdir(cg);

	/* no slurm.conf */
	unlink(conf);
	ok(conf_files_read(conf, key, &m, &err) < 0 && strstr(err, "slurm.conf"), "slurm.conf needed");
	free(err);
	free(cg);
	free(hc);
	free(conf);
	free(key);
}

static void test_cache(const char *base)
{
	char *dir = xasprintf("%s/cache", base);
	msg_config_files_t m = { 0 };
	char *err = NULL;
	strv_push(&m.names, "slurm.conf");
	strv_push(&m.data, "ClusterName=y\n");
	strv_push(&m.names, "health.conf");
	strv_push(&m.data, "memory min_free=1M\n");
	ok(conf_cache_write(dir, &m, &err) == 0, "cached: %s", err ? err : "ok");
	char *p = xasprintf("%s/slurm.conf", dir);
	char *got = file_read_small(p, 1024);
	is_str(got, "ClusterName=y\n", "slurm.conf written");
	free(got);
	struct stat st;
	ok(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644, "mode 0644");
	free(p);
	ok(has(dir, "health.conf"), "health.conf written");

	/* the next answer has no health.conf: it goes from the cache */
	proto_free(MSG_CONFIG_FILES, &m);
	memset(&m, 0, sizeof(m));
	strv_push(&m.names, "slurm.conf");
	strv_push(&m.data, "ClusterName=z\n");
	ok(conf_cache_write(dir, &m, &err) == 0, "cached again");
	ok(!has(dir, "health.conf"), "a file the controller no longer has is removed");

	/* names outside the list, twice, or no slurm.conf: nothing written */
	static const char *const bad[] = { "../slurm.conf", "slurm.key", "x/gres.conf", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg_config_files_t b = { 0 };
		strv_push(&b.names, "slurm.conf");
		strv_push(&b.data, "ClusterName=evil\n");
		strv_push(&b.names, bad[i]);
		strv_push(&b.data, "x");
		ok(conf_cache_write(dir, &b, &err) < 0 && strstr(err, "refusing file"), "'%s' refused",
		   bad[i]);
		free(err);
		proto_free(MSG_CONFIG_FILES, &b);
	}
	p = xasprintf("%s/slurm.conf", dir);
	got = file_read_small(p, 1024);
	is_str(got, "ClusterName=z\n", "a refused answer changed nothing");
	free(got);
	free(p);
	msg_config_files_t b = { 0 };
	strv_push(&b.names, "gres.conf");
	strv_push(&b.data, "x");
	ok(conf_cache_write(dir, &b, &err) < 0 && strstr(err, "no slurm.conf"), "slurm.conf needed");
	free(err);
	proto_free(MSG_CONFIG_FILES, &b);
	memset(&b, 0, sizeof(b));
	strv_push(&b.names, "slurm.conf");
	strv_push(&b.data, "a");
	strv_push(&b.names, "slurm.conf");
	strv_push(&b.data, "b");
	ok(conf_cache_write(dir, &b, &err) < 0 && strstr(err, "twice"), "a name twice refused");
	free(err);
	proto_free(MSG_CONFIG_FILES, &b);
	memset(&b, 0, sizeof(b));
	strv_push(&b.names, "slurm.conf");
	ok(conf_cache_write(dir, &b, &err) < 0, "names without data refused");
	free(err);
	proto_free(MSG_CONFIG_FILES, &b);
	proto_free(MSG_CONFIG_FILES, &m);
	free(dir);
}

static void test_server(void)
{
	char *h = NULL;
	uint16_t port = 0;
	ok(conf_server_parse("ctl1", 6817, &h, &port) == 0 && !strcmp(h, "ctl1") && port == 6817,
	   "HOST: default port");
	free(h);
	ok(conf_server_parse("ctl1:7000", 6817, &h, &port) == 0 && !strcmp(h, "ctl1") && port == 7000,
	   "HOST:PORT");
	free(h);
	ok(conf_server_parse("[::1]:7001", 6817, &h, &port) == 0 && !strcmp(h, "::1") && port == 7001,
	   "[V6]:PORT");
	free(h);
	ok(conf_server_parse("::1", 6817, &h, &port) == 0 && !strcmp(h, "::1") && port == 6817,
	   "a bare IPv6 address");
	free(h);
	static const char *const bad[] = { "", ":7000", "h:", "h:0", "h:65536", "h:7x", "[::1", "[]:1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(conf_server_parse(bad[i], 6817, &h, &port) < 0 && !h, "'%s' refused", bad[i]);
		free(h);
	}
}

int main(void)
{
	char tmpl[] = "/tmp/test_conf_files.XXXXXX";
	char *dir = mkdtemp(tmpl);
	ok(dir != NULL, "temp dir");
	if (!dir)
		return done_testing();
	test_read(dir);
	test_cache(dir);
	test_server();
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		ok(0, "cleanup");
	free(cmd);
	return done_testing();
}
