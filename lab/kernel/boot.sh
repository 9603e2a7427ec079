#!/usr/bin/env bash
# Kernel lab: boots Debian's stock kernel under QEMU with the host's root filesystem (read-only, under a tmpfs
# overlay) and runs one command in it as root — for what the host kernel cannot do (psample, act_sample,
# drop_monitor are modules there; our machines' kernel has neither them nor module loading).
#
#   lab/kernel/boot.sh [--timeout SECONDS] [--keep] -- COMMAND [ARGS...]
#
# COMMAND runs in the guest as root, in the current directory (seen read-only through the overlay; writes land in
# the guest's tmpfs), with a clean environment plus VFLAB_SHARED=/lab, a read-write folder that is
# $WORK/shared on the host. Its output is streamed here; this script exits with its exit status, or 124 when the
# guest did not report one within --timeout (default 240 s; QEMU exits 0 even when killed, so only the status file
# the guest wrote counts).
#
# Steps (facts and timings: the kernel-lab notes in the README's development section):
#   1. Debian packages qemu-system-x86 busybox-static kmod (installed with apt-get when root, else named)
#   2. apt-get download of linux-image-<KVER>-amd64 (KVER from `apt-cache depends linux-image-amd64`, or
#      VECFLOW_KERNEL_PACKAGE=linux-image-...); dpkg-deb -x into the work folder (never installed); depmod
#   3. vmlinux extracted from vmlinuz (extract-vmlinux.py; saves ~5 s per TCG boot)
#   4. initramfs: busybox-static, init.sh as /init, the virtio/9p/overlay modules in modprobe's order
#   5. qemu-system-x86_64: TCG single-threaded (multi-threaded TCG crashed the JVM); KVM only when kvm_intel or
#      kvm_amd is loaded and kvm_pvm is not (a stock kernel never boots under kvm_pvm)
#   6. always: stops QEMU and the log streamer (by pid), removes the work folder ($TMPDIR/vecflow-kernel-lab.*,
#      ~0.5 GB; --keep leaves it for a look)
set -euo pipefail

LAB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source-path=SCRIPTDIR source=../../scripts/lib/common.sh
source "$LAB/../../scripts/lib/common.sh"

TIMEOUT=240
KEEP=0
while (($#)); do
  case "$1" in
    --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,25p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) vf_die "unknown option $1 (usage: boot.sh [--timeout S] [--keep] -- COMMAND [ARGS...])" ;;
  esac
done
(($#)) || vf_die "no command (usage: boot.sh [--timeout S] [--keep] -- COMMAND [ARGS...])"
if ! [[ "$TIMEOUT" =~ ^[0-9]+$ ]] || ((TIMEOUT < 10)); then vf_die "--timeout must be a number of seconds >= 10"; fi
[[ "$(id -u)" -eq 0 ]] || vf_die "the kernel lab needs root (9p export of /, apt-get download, depmod)"

WORK=""
QEMU_PID=""
TAIL_PID=""
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  if [[ -n "$QEMU_PID" ]] && kill -0 "$QEMU_PID" 2>/dev/null; then
    kill -KILL "$QEMU_PID" 2>/dev/null
    wait "$QEMU_PID" 2>/dev/null
  fi
  if [[ -n "$TAIL_PID" ]] && kill -0 "$TAIL_PID" 2>/dev/null; then
    kill "$TAIL_PID" 2>/dev/null
    wait "$TAIL_PID" 2>/dev/null
  fi
  if [[ -n "$WORK" && -d "$WORK" ]]; then
    if ((KEEP)); then vf_log "--keep: work folder left in $WORK"; else rm -rf "$WORK"; fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

vf_ensure_packages qemu-system-x86 busybox-static kmod

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vecflow-kernel-lab.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
case "$WORK" in *[[:space:]]*) vf_die "the work folder path must not contain spaces: $WORK" ;; esac
case "$PWD" in *[[:space:]]*) vf_die "the current folder's path must not contain spaces (kernel command line): $PWD" ;; esac
chmod 755 "$WORK"
mkdir -p "$WORK/deb" "$WORK/kernel" "$WORK/initramfs/bin" "$WORK/initramfs/modules" "$WORK/shared"

# ---- 2. kernel package ----
t0=$SECONDS
PKG=${VECFLOW_KERNEL_PACKAGE:-}
if [[ -z "$PKG" ]]; then
  PKG=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n1)
  if [[ -z "$PKG" ]]; then
    apt-get -q update >/dev/null || vf_die "apt-get update failed"
    PKG=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n1)
  fi
  [[ -n "$PKG" ]] || vf_die "apt-cache depends linux-image-amd64 names no linux-image-<version> package"
fi
# Downloaded packages are kept in a cache (one kernel, ~70 MB; VECFLOW_KERNEL_LAB_CACHE, default
# /var/cache/vecflow/kernel-lab) so that later runs need no network; the newest matching package name wins.
CACHE=${VECFLOW_KERNEL_LAB_CACHE:-/var/cache/vecflow/kernel-lab}
cached=$(ls -t "$CACHE/${PKG}"_*.deb 2>/dev/null | head -n1 || true)
download() { (cd "$WORK/deb" && apt-get -q download -o APT::Sandbox::User=root "$PKG" >/dev/null); }
if [[ -n "$cached" ]]; then
  cp "$cached" "$WORK/deb/"
  vf_log "kernel package from the cache: $cached"
else
  if ! download; then
    vf_log "apt-get download $PKG failed: refreshing the package lists once"
    apt-get -q update >/dev/null || vf_die "apt-get update failed"
    download || vf_die "apt-get download $PKG failed"
  fi
  if mkdir -p "$CACHE" 2>/dev/null; then
    rm -f "$CACHE"/linux-image-*.deb
    cp "$WORK"/deb/*.deb "$CACHE/" || true
  fi
fi
DEB=$(ls "$WORK"/deb/*.deb)
dpkg-deb -x "$DEB" "$WORK/kernel"
rm -f "$DEB"
KVER=$(ls "$WORK/kernel/lib/modules")
[[ -n "$KVER" && -f "$WORK/kernel/boot/vmlinuz-$KVER" ]] || vf_die "$PKG holds no /boot/vmlinuz-<version>"
depmod -b "$WORK/kernel" "$KVER"

# ---- 3. vmlinux ----
python3 "$LAB/extract-vmlinux.py" "$WORK/kernel/boot/vmlinuz-$KVER" "$WORK/vmlinux" >/dev/null

# ---- 4. initramfs ----
cp /bin/busybox "$WORK/initramfs/bin/busybox"
cp "$LAB/init.sh" "$WORK/initramfs/init"
chmod 755 "$WORK/initramfs/init"
declare -A seen=()
for m in virtio_pci 9pnet_virtio 9p overlay; do
  while read -r verb path _; do
    [[ "$verb" == insmod ]] || continue
    name=$(basename "$path")
    [[ -n "${seen[$name]:-}" ]] && continue
    seen[$name]=1
    cp "$path" "$WORK/initramfs/modules/$name"
    echo "$name" >> "$WORK/initramfs/modules/order"
  done < <(modprobe -d "$WORK/kernel" -S "$KVER" --show-depends "$m")
done
(cd "$WORK/initramfs" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$WORK/initramfs.gz")
vf_log "kernel lab: $PKG ($KVER) prepared in $((SECONDS - t0))s"

# ---- 5. boot ----
{
  echo "# written by lab/kernel/boot.sh"
  echo "export VFLAB_SHARED=/lab VFLAB_KERNEL_PACKAGE=$(printf '%q' "$PKG")"
  echo "cd $(printf '%q' "$PWD") || exit 125"
  printf 'exec'
  printf ' %q' "$@"
  echo
} > "$WORK/shared/run.sh"

ACCEL=(-accel "tcg,thread=single" -cpu max)
ACCEL_NAME="TCG (single-threaded)"
if [[ -w /dev/kvm && ! -d /sys/module/kvm_pvm ]] && [[ -d /sys/module/kvm_intel || -d /sys/module/kvm_amd ]]; then
  ACCEL=(-accel kvm -cpu host)
  ACCEL_NAME="KVM"
fi
vf_log "kernel lab: booting $KVER under $ACCEL_NAME (timeout ${TIMEOUT}s): $*"
t1=$SECONDS
: > "$WORK/shared/guest.log"
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 "${ACCEL[@]}" -smp 2 -m 2G -display none -no-reboot -nic none \
  -kernel "$WORK/vmlinux" -initrd "$WORK/initramfs.gz" \
  -append "console=ttyS0 panic=-1 quiet vflab.modules=$WORK/kernel/lib/modules vflab.cwd=$PWD" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$WORK/shared,mount_tag=lab,security_model=none,multidevs=remap" \
  -serial "file:$WORK/console.log" -monitor none </dev/null &
QEMU_PID=$!
# streams the guest's output; tail ends by itself within 1 s of QEMU (--pid), and sed with it
(tail -n +1 -F --pid="$QEMU_PID" "$WORK/shared/guest.log" 2>/dev/null | sed -u 's/^/  guest| /' >&2) &
TAIL_PID=$!
set +e
wait "$QEMU_PID"
QEMU_RC=$?
set -e
QEMU_PID=""
wait "$TAIL_PID" 2>/dev/null || true
TAIL_PID=""

STATUS=""
[[ -f "$WORK/shared/status" ]] && read -r STATUS < "$WORK/shared/status"
if ! [[ "$STATUS" =~ ^[0-9]+$ ]]; then
  vf_log "kernel lab: the guest reported no exit status after $((SECONDS - t1))s (qemu exit $QEMU_RC;" \
    "$( ((QEMU_RC == 124 || QEMU_RC == 137)) && echo "timed out after ${TIMEOUT}s" || echo "no timeout")); console tail:"
  tail -n 40 "$WORK/console.log" >&2 || true
  exit 124
fi
vf_log "kernel lab: guest exit status $STATUS (boot + run + poweroff $((SECONDS - t1))s, total $((SECONDS - t0))s)"
exit "$STATUS"
