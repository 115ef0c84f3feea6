#!/bin/sh
# Stands in for ptxas: prints its command line where ptxas prints its report
# and writes a placeholder cubin to the file after -o (the last argument).
echo "fake ptxas $*"
for last; do :; done
echo "fake cubin" > "$last"
