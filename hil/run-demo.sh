#!/usr/bin/env bash
# The HIL demo (README Quick start, first command): the solo12 balance controller on an
# emulated Cortex-M7 (QEMU mps2-an500, -icount) in lockstep with the MuJoCo plant, through
# every scenario (stand up, stand, pushes, three feet, link faults, NaN sensor, silent link),
# then the verdict table and the plots. Exits with the harness's code (0: every check passed).
#   bash hil/run-demo.sh            the Cortex-M7 (the main job)
#   bash hil/run-demo.sh native     the same firmware as a native POSIX process (build/host-release)
#   bash hil/run-demo.sh freertos   the same firmware as a FreeRTOS task on the Cortex-M7
#   bash hil/run-demo.sh freertos-x86
#                                   the same firmware as a FreeRTOS task on bare-metal 32-bit x86
#                                   (QEMU pc, qemu-system-i386 -icount; the link on COM2, a 16550;
#                                   build/x86-baremetal; output in build/hil-demo-freertos-x86)
#   bash hil/run-demo.sh envelope   the robustness envelope (hil/envelope.py): the full scenario
#                                   natively under payloads, lower friction, 2× noise, latency,
#                                   an IMU bias step, pushes bisected; one table and a figure
#   HIL_ROBOT=anymal_c bash hil/run-demo.sh [native]
#                                   the second robot (hil/robots), on the Cortex-M7 or natively
#                                   (output in build/hil-demo[-native]-anymal_c)
# Builds only what the demo needs: the generator and the harness (build/target-host), the
# firmware (build/cortex-m7; freertos-x86: build/x86-baremetal). Output: build/hil-demo[-native]/log.csv and plots/*.png;
# envelope: build/hil-envelope/envelope.{md,csv,png}.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
robot="${HIL_ROBOT:-solo12}"
case "$robot" in
  solo12) urdf_rel=solo12/solo12.urdf; suffix=""; fw_native=hil_firmware_native; fw_m7=hil_firmware ;;
  anymal_c) urdf_rel=anymal_c/anymal.urdf; suffix="-anymal_c"; fw_native=hil_firmware_native_anymal_c
            fw_m7=hil_firmware_anymal_c ;;
  *) echo "run-demo: HIL_ROBOT=$robot: solo12 or anymal_c" >&2; exit 2 ;;
esac
if [ "$robot" != solo12 ] && { [ "${1:-}" = envelope ] || [ "${1:-}" = freertos ] || [ "${1:-}" = freertos-x86 ]; }; then
  echo "run-demo: $1 runs solo12 only" >&2
  exit 2
fi
urdf="${TALUS_MODELS_DIR:-$root/../shared/models}/$urdf_rel"
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3   # Debian's, with python3-matplotlib
if [ "${1:-}" = "envelope" ]; then
  cmake -S . -B build/host-release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/host-release -j2 --target hil_firmware_native hil_harness
  exec "$python" hil/envelope.py --harness build/host-release/hil/hil_harness \
    --firmware build/host-release/hil/hil_firmware_native --urdf "$urdf" --out build/hil-envelope "${@:2}"
fi
if [ "${1:-}" = "native" ]; then
  cmake -S . -B build/host-release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/host-release -j2 --target "$fw_native" hil_harness
  out=build/hil-demo-native$suffix
  harness=build/host-release/hil/hil_harness
  firmware=(--native "build/host-release/hil/$fw_native")
  title="$robot balance controller, native POSIX process"
elif [ "${1:-}" = "freertos" ]; then
  cmake --preset cortex-m7 >/dev/null
  cmake --build build/cortex-m7 -j2 --target hil_firmware_freertos
  out=build/hil-demo-freertos
  harness=build/target-host/bin/hil_harness
  firmware=(--qemu build/cortex-m7/targets/freertos/hil_firmware_freertos
            --name "cortex-m7, FreeRTOS task (QEMU mps2-an500, -icount shift=3)")
  title="solo12 balance controller in a FreeRTOS task on an emulated Cortex-M7"
elif [ "${1:-}" = "freertos-x86" ]; then
  cmake --preset x86-baremetal >/dev/null
  cmake --build build/x86-baremetal -j2 --target hil_firmware_freertos
  out=build/hil-demo-freertos-x86
  harness=build/target-host/bin/hil_harness
  firmware=(--qemu build/x86-baremetal/targets/freertos/hil_firmware_freertos --machine pc
            --name "x86 bare metal, FreeRTOS task (QEMU pc, COM2 link, -icount shift=3)")
  title="solo12 balance controller in a FreeRTOS task on emulated bare-metal x86"
else
  cmake --preset cortex-m7 >/dev/null
  cmake --build build/cortex-m7 -j2 --target "$fw_m7"
  out=build/hil-demo$suffix
  harness=build/target-host/bin/hil_harness
  firmware=(--qemu "build/cortex-m7/targets/$fw_m7")
  title="$robot balance controller on an emulated Cortex-M7"
fi
rc=0
"$harness" --robot "$robot" --urdf "$urdf" "${firmware[@]}" --run full --out "$out" || rc=$?
"$python" hil/plot.py "$out/log.csv" "$out/plots" --title "$title" >/dev/null
echo "plots: $root/$out/plots/{base,estimate,innovation,com,forces,torques,instructions,faults}.png; log: $root/$out/log.csv"
exit $rc
