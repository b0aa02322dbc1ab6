#!/usr/bin/env bash

#PBS -N dask-worker
#PBS -l select=1:ncpus=2:mem=954MB
#PBS -l walltime=00:30:00
#PBS -e logs/
#PBS -o logs/

# The header dask-jobqueue's PBSCluster writes with its defaults (cores=2,
# memory="1GB", log_directory="logs"); the worker command it runs here
# (python -m distributed.cli.dask_worker tcp://...) replaced by a stand-in
# that says where and with what it ran.
echo "worker $PBS_JOBID on $(hostname -s) in $PWD"
