/*
 * Comments as systemtap's dtrace reads a file without -C, from a `#` to the end of its
 * line: libvirt marks the sections of its provider with `# file:` and `# prefix:` lines
 * (src/libvirt_probes.d), and a line may end in a `# note`. Built without -C. Also the
 * ';' that systemtap's dtrace lets a probe and a provider's '}' go without.
 */
provider virt {
	# file: src/util/virobject.c
	# prefix: object
	probe object_new(void *obj, const char *klass);
	probe object_ref(void *obj); # a trailing note
	probe object_unref(void *obj)   # no ';', which systemtap's dtrace takes as optional
	# 2 probes per object: not a line marker

	# file: src/rpc/virnetserverclient.c
	# prefix: rpc
	probe rpc_server_client_msg_tx_queue(void *client, int len, int prog, int vers, int proc, int type, int status, int serial);
	# probe commented_out(int n);
}
