# Sourced by the image builds (images/harness/build.sh, images/kafka/build.sh):
# what both do the same way. Each image is a minimal root folder that
# `docker import` turns into an image, with a static busybox as its shell.

say() { echo "build.sh: $*" >&2; }

# need_docker exits unless a Docker engine answers.
need_docker() {
	if ! docker info >/dev/null 2>&1; then
		say "no Docker engine answers: run 'make docker' (images/kafka/docker.sh start) first"
		exit 1
	fi
}

# need_busybox exits unless a static /bin/busybox (the image's shell) is
# there.
need_busybox() {
	if [ ! -x /bin/busybox ] || ! /bin/busybox --list | grep -qx sh; then
		say "no static /bin/busybox (the image's shell): install Debian's busybox-static (.ci/install does)"
		exit 1
	fi
}

# add_busybox_root ROOT puts busybox and a link per applet in ROOT/bin and
# the root and nobody accounts in ROOT/etc.
add_busybox_root() {
	cp -L /bin/busybox "$1/bin/busybox"
	for cmd in $(/bin/busybox --list); do
		[ -e "$1/bin/$cmd" ] || ln -s busybox "$1/bin/$cmd"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$1/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$1/etc/group"
}
