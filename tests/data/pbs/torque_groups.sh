#!/bin/bash
#PBS -N groups
#PBS -l nodes=1:ppn=1+1:ppn=1
#PBS -l pmem=100mb,walltime=5:00
#PBS -j oe
#PBS -k oe
#PBS -m n
#PBS -r n
#PBS -V
# A Torque script as site templates write it: two node groups of one
# processor, memory per processor, output kept (-k: moku writes it in
# place, and says so).
cat "$PBS_NODEFILE" | sort | tr '\n' ' '
echo
