#!/usr/bin/env bash
# Runs its arguments as a command and then prints "exit status N", so that a
# lit test can check the exact exit status of a tool with FileCheck.
"$@"
echo "exit status $?"
