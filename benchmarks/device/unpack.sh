#!/bin/bash
# usage (on the device, in the second call, carrying .pack/a2, .pack/b and .pack/mltune-*.dist-info):
#   bash benchmarks/device/unpack.sh && export PATH=/tmp/site/bin:$PATH PYTHONPATH=$PWD:/tmp/site
# Unpacks what benchmarks/device/make_pack.sh packed into /tmp/site, once per machine: IREE from the first call's
# /tmp/site_a1 and this call's .pack/a2, then .pack/b and mltune's entry points.
set -euo pipefail
[ -d /tmp/site/iree ] && exit 0
if [ ! -f /tmp/site_a1 ]; then
  echo "no /tmp/site_a1: run 'cp .pack/a1/part /tmp/site_a1' in a call carrying .pack/a1 first" >&2
  exit 3
fi
mkdir -p /tmp/site
cat /tmp/site_a1 .pack/a2/part | tar xJ -C /tmp/site
tar xJf .pack/b/site.tar.xz -C /tmp/site
cp -r .pack/mltune-*.dist-info /tmp/site/
