#!/bin/busybox sh
# shellcheck shell=dash
# /init of the kernel lab's initramfs (boot.sh packs it with busybox-static and the 9p/virtio/overlay modules).
#
# 1. insmods the modules listed in /modules/order (virtio, 9p, overlay; the order modprobe --show-depends gave)
# 2. mounts the host root (9p tag "hostroot", read-only) as the lower layer of an overlay with a tmpfs upper layer
# 3. mounts proc, sys, dev, devpts, shm, tmp, run in it; /dev/fd -> /proc/self/fd (devtmpfs lacks it)
# 4. binds the extracted kernel modules (kernel command line vflab.modules=<host path>) on /lib/modules
# 5. mounts the shared folder (9p tag "lab", read-write) on /lab
# 6. chroots and runs /lab/run.sh with a clean environment; its output goes to /lab/guest.log, its exit status to
#    /lab/status (the host trusts only that file: QEMU exits 0 even when killed)
# 7. powers off at once (-f), which QEMU turns into its exit (-no-reboot)
/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

fail() {
  echo "vflab-init: $*" > /dev/console
  [ -d /root/lab ] && echo "vflab-init: $*" >> /root/lab/guest.log
  poweroff -f
}

modules=""
cwd=""
# shellcheck disable=SC2013 # the command line is one line of words
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    vflab.modules=*) modules=${arg#vflab.modules=} ;;
    vflab.cwd=*) cwd=${arg#vflab.cwd=} ;;
  esac
done
[ -n "$modules" ] || fail "no vflab.modules= on the kernel command line"

while read -r ko; do
  insmod "/modules/$ko" || fail "insmod $ko failed"
done < /modules/order

mkdir -p /lower /rw /root
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /lower || fail "9p hostroot"
mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /root || fail "overlay"
R=/root
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts $R/dev/pts
mount -t tmpfs tmpfs $R/dev/shm
ln -sf /proc/self/fd $R/dev/fd
# before the tmpfs on /tmp, which would hide a module folder under the host's /tmp
mkdir -p $R/lib/modules $R/lab
mount --bind "$R$modules" $R/lib/modules || fail "bind $modules on /lib/modules"
# The host folder the command runs in (a checkout under /tmp, say) would be hidden by the tmpfs on /tmp and /run
# too: hold it on a side mount and put it back at its path afterwards.
case "$cwd" in
  /tmp/*|/run/*)
    mkdir -p $R/.vflab-cwd
    mount --bind "$R$cwd" $R/.vflab-cwd || fail "bind $cwd" ;;
esac
mount -t tmpfs -o mode=1777 tmpfs $R/tmp
mount -t tmpfs -o mode=0755 tmpfs $R/run
case "$cwd" in
  /tmp/*|/run/*)
    mkdir -p "$R$cwd"
    mount --bind $R/.vflab-cwd "$R$cwd" || fail "bind back $cwd" ;;
esac
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 lab $R/lab || fail "9p lab"
# The debugfs and tracefs many drop-monitor tools read; cheap, so always there.
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null

chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  LANG=C.UTF-8 TMPDIR=/tmp /bin/bash /lab/run.sh > $R/lab/guest.log 2>&1
echo $? > $R/lab/status
sync
umount $R/lab
poweroff -f
