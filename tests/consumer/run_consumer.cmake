# Installs talus from TALUS_SOURCE into a scratch prefix, then configures, builds and runs
# the consumer project against it. Any failing step fails the test.
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()
run(${CMAKE_COMMAND} -S ${TALUS_SOURCE} -B ${WORK}/talus-build -DCMAKE_BUILD_TYPE=Release
    -DTALUS_BUILD_TESTS=OFF -DTALUS_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX=${WORK}/prefix)
run(${CMAKE_COMMAND} --build ${WORK}/talus-build -j2)
run(${CMAKE_COMMAND} --install ${WORK}/talus-build)
run(${CMAKE_COMMAND} -S ${TALUS_SOURCE}/tests/consumer -B ${WORK}/consumer-build
    -DCMAKE_PREFIX_PATH=${WORK}/prefix -DMODELS=${MODELS})
run(${CMAKE_COMMAND} --build ${WORK}/consumer-build -j2)
run(${WORK}/consumer-build/consumer)
