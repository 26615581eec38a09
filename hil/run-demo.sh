#!/usr/bin/env bash
# The HIL demo (README Quick start, first command): the solo12 balance controller on an
# emulated Cortex-M7 (QEMU mps2-an500, -icount) in lockstep with the MuJoCo plant, through
# every scenario (stand up, stand, pushes, three feet, link faults, NaN sensor, silent link),
# then the verdict table and the plots. Exits with the harness's code (0: every check passed).
#   bash hil/run-demo.sh            the Cortex-M7 (the main job)
#   bash hil/run-demo.sh native     the same firmware as a native POSIX process (build/host-release)
#   bash hil/run-demo.sh freertos   the same firmware as a FreeRTOS task on the Cortex-M7
#   bash hil/run-demo.sh envelope   the robustness envelope (hil/envelope.py): the full scenario
#                                   natively under payloads, lower friction, 2× noise, latency,
#                                   an IMU bias step, pushes bisected; one table and a figure
# Builds only what the demo needs: the generator and the harness (build/target-host), the
# firmware (build/cortex-m7). Output: build/hil-demo[-native]/log.csv and plots/*.png;
# envelope: build/hil-envelope/envelope.{md,csv,png}.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
urdf="${TALUS_MODELS_DIR:-$root/../shared/models}/solo12/solo12.urdf"
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
  cmake --build build/host-release -j2 --target hil_firmware_native hil_harness
  out=build/hil-demo-native
  harness=build/host-release/hil/hil_harness
  firmware=(--native build/host-release/hil/hil_firmware_native)
  title="solo12 balance controller, native POSIX process"
elif [ "${1:-}" = "freertos" ]; then
  cmake --preset cortex-m7 >/dev/null
  cmake --build build/cortex-m7 -j2 --target hil_firmware_freertos
  out=build/hil-demo-freertos
  harness=build/target-host/bin/hil_harness
  firmware=(--qemu build/cortex-m7/targets/freertos/hil_firmware_freertos
            --name "cortex-m7, FreeRTOS task (QEMU mps2-an500, -icount shift=3)")
  title="solo12 balance controller in a FreeRTOS task on an emulated Cortex-M7"
else
  cmake --preset cortex-m7 >/dev/null
  cmake --build build/cortex-m7 -j2 --target hil_firmware
  out=build/hil-demo
  harness=build/target-host/bin/hil_harness
  firmware=(--qemu build/cortex-m7/targets/hil_firmware)
  title="solo12 balance controller on an emulated Cortex-M7"
fi
rc=0
"$harness" --urdf "$urdf" "${firmware[@]}" --run full --out "$out" || rc=$?
"$python" hil/plot.py "$out/log.csv" "$out/plots" --title "$title" >/dev/null
echo "plots: $root/$out/plots/{base,estimate,com,forces,torques,instructions,faults}.png; log: $root/$out/log.csv"
exit $rc
