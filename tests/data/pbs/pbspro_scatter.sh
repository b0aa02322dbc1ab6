#!/bin/sh
#PBS -N scatter
#PBS -l select=2:ncpus=1:mpiprocs=1:mem=100mb
#PBS -l place=scatter
#PBS -l walltime=00:05:00
#PBS -o localhost:out/scatter.txt
#PBS -W group_list=daemon
# A PBS Pro script: two chunks of one processor on two nodes, output to
# host:path on this host, run as the group group_list names.
sort "$PBS_NODEFILE" | uniq | wc -l
id -gn
