# Writes OUTPUT, a C++ fragment that holds each fa4-level program of SOURCES
# as a raw string, named after its file: the shipped kernels, compiled into
# the compiler so that it needs no files at run time. SOURCES is
# comma-separated.
string(REPLACE "," ";" SOURCES "${SOURCES}")
set(text "/// Generated from lib/Kernels by EmbedKernels.cmake: do not edit.\n")
string(APPEND text "struct ShippedKernel {\n  const char *name;\n  const char *source;\n};\n")
string(APPEND text "const ShippedKernel kShippedKernels[] = {\n")
foreach(source ${SOURCES})
  get_filename_component(name ${source} NAME_WE)
  file(READ ${source} contents)
  string(APPEND text "    {\"${name}\", R\"fa4kernel(${contents})fa4kernel\"},\n")
endforeach()
string(APPEND text "};\n")
file(WRITE ${OUTPUT}.tmp "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different
                ${OUTPUT}.tmp ${OUTPUT})
