# cmake -DGLUE=<quiver.mjs> -P patch-glue.cmake
# The simd-mt glue starts pthread workers with `new Worker(new URL("quiver.worker.js",
# import.meta.url))` when no locateFile is given. The package loader always gives one, so that
# branch never runs, but bundlers (Vite) see the pattern and try to bundle quiver.worker.js as
# a worker of its own, which fails (it imports the glue, which starts it again). Route the
# branch through locateFile() as well; behaviour is unchanged.
file(READ "${GLUE}" text)
set(from "new Worker(new URL(\"quiver.worker.js\",import.meta.url))")
set(to "new Worker(locateFile(\"quiver.worker.js\"))")
string(FIND "${text}" "${from}" at)
if(at EQUAL -1)
  string(FIND "${text}" "${to}" done)
  if(done EQUAL -1)
    message(FATAL_ERROR "patch-glue.cmake: the worker start-up code of ${GLUE} has changed; update the patch")
  endif()
else()
  string(REPLACE "${from}" "${to}" text "${text}")
  file(WRITE "${GLUE}" "${text}")
endif()
