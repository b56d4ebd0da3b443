#!/bin/sh
# The image's runtime root file system without a package manager (Dockerfile, stage `lean`):
# Debian's apt, dpkg, debconf, Perl, the account and login tools with PAM, and the other parts of
# the base that nothing in the image runs (the harness starts no program: it is Python and a JVM,
# and the entry point needs only sh, stat, ls and setpriv), ~40 MB. The final stage copies the
# result FROM scratch, so the removed files are gone from the image, not hidden in a layer.
# Packages cannot be added to the finished image: extend the Dockerfile's `runtime` stage instead.
#   scripts/docker-lean.sh      (as root, in the stage; it ends by checking every program and
#                                shared library left still finds the libraries it links)
set -eu
# Each package's files (dpkg -L) are removed, then dpkg's own database. Kept: coreutils, dash,
# bash, util-linux (setpriv), findutils, grep, sed, gzip, mawk, the C and C++ runtimes and every
# library Python or Java link (zlib, OpenSSL, SQLite, Berkeley DB for dbm, libffi...).
packages="apt libapt-pkg7.0 sqv debian-archive-keyring debconf libdebconfclient0 perl-base
  passwd login libsemanage2 libsemanage-common libsepol2 libpam-modules libpam-modules-bin
  libpam-runtime libpam0g libaudit1 libaudit-common diffutils tar dpkg init-system-helpers
  sysvinit-utils mount libseccomp2 libhogweed6t64 libnettle8t64"
for p in $packages; do
  dpkg-query -W "$p" >/dev/null   # a package missing from the base is a change to look at
done
list=$(mktemp)
for p in $packages; do dpkg -L "$p"; done | sort -u >"$list"
while IFS= read -r f; do
  if [ -f "$f" ] || [ -L "$f" ]; then rm -f "$f"; fi
done <"$list"
rm -f "$list"
# util-linux's su and runuser, and base-passwd's update-passwd, link PAM or debconf (removed above).
rm -f /usr/bin/su /usr/sbin/runuser /usr/sbin/update-passwd
# dpkg's and apt's state, debconf's cache, logs, and glibc's iconv modules (gconv: only iconv(3)
# loads them; Python's codecs and Java's charsets are their own, UTF-8 is built into glibc).
rm -rf /var/lib/dpkg /var/lib/apt /var/cache/apt /var/cache/debconf /etc/apt /etc/dpkg \
  /usr/lib/x86_64-linux-gnu/gconv /usr/share/doc /usr/share/man /usr/share/info /usr/share/lintian
find /var/log -type f -delete
# Every ELF file left must find each library it needs (ldd prints "not found" otherwise).
missing=$(find / -xdev -type f \( -perm -u+x -o -name '*.so*' \) -exec sh -c \
  'for f; do ldd "$f" 2>/dev/null | grep "not found" | sed "s|^|$f:|"; done' sh {} +)
if [ -n "$missing" ]; then
  echo "docker-lean.sh: left without a library they link:" >&2
  echo "$missing" >&2
  exit 1
fi
