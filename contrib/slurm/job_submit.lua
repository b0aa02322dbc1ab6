--[[
moku's job-submit plugin for Slurm (JobSubmitPlugins=lua; this file goes
beside slurm.conf). Every job -- sbatch, srun, salloc, from any user -- is
created held (priority 0), so nothing starts until moku releases it on the
nodes it chose (docs/slurm.md). A job's owner may not release it by hand:
only root (moku, SlurmUser) may change a held job's priority to anything
but 0. Other changes (scontrol hold, a shorter time limit) are allowed.
]]

function slurm_job_submit(job_desc, part_list, submit_uid)
    job_desc.priority = 0
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    if modify_uid ~= 0 and job_desc.priority ~= slurm.NO_VAL and job_desc.priority ~= 0 then
        return slurm.ESLURM_ACCESS_DENIED
    end
    return slurm.SUCCESS
end

slurm.log_info("moku job_submit.lua loaded: new jobs are held for moku")
return slurm.SUCCESS
