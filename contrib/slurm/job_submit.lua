--[[
moku's job-submit plugin for Slurm (JobSubmitPlugins=lua; this file goes
beside slurm.conf; docs/slurm.md).

Submission. Every job -- sbatch, srun, salloc, from any user -- is created
held (priority 0), so that nothing starts until moku releases it on the
nodes it chose. A job no node could ever hold (a task of more CPUs or
memory than any node of its partition has, more tasks than all of them
hold, more nodes than the partition has) is refused here, with the reason,
as Slurm refuses it when it schedules by itself ("Requested node
configuration is not available"): Slurm does not test a held job. The
nodes' sizes come from slurm.conf (NodeName lines), read when slurmctld
loads this file.

Holds. Priority 0 is moku's queue. A user's own hold (scontrol hold, sbatch
--hold) is kept as the word "moku-hold" in the job's comment, which moku
reads as a user hold; the user's scontrol release takes the word away (the
job then waits in moku's queue again), and releases nothing else: a job
waiting for moku cannot be released past it ("Access/permission denied").
An administrator's scontrol hold is Slurm's own (JobHeldAdmin), a system
hold for moku; an administrator's scontrol release of a held job is turned
into the admin comment "moku-release", which moku reads as the release of
that hold (the job still waits for moku to start it). moku's own updates
are root's with a node list (ReqNodeList, empty when it holds): those pass.
]]

local MARK = "moku-hold"
local UNMARKED = "moku-released" -- what is left of a comment that was the mark only:
                                 -- Slurm cannot empty a comment
local RELEASE = "moku-release"
local NODE_CONFIG_UNAVAILABLE = 2014 -- ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE

local function words(s)
    local out = {}
    for w in string.gmatch(s or "", "%S+") do
        out[#out + 1] = w
    end
    return out
end

local function has_mark(comment)
    for _, w in ipairs(words(comment)) do
        if w == MARK then
            return true
        end
    end
    return false
end

-- The comment's words but the mark (and what stood for none).
local function others(comment)
    local keep = {}
    for _, w in ipairs(words(comment)) do
        if w ~= MARK and w ~= UNMARKED then
            keep[#keep + 1] = w
        end
    end
    return keep
end

local function add_mark(comment)
    local keep = others(comment)
    keep[#keep + 1] = MARK
    return table.concat(keep, " ")
end

local function drop_mark(comment)
    local keep = others(comment)
    return #keep > 0 and table.concat(keep, " ") or UNMARKED
end

---------------------------------------------------------------- the nodes

-- "n[1-3,7],m01" -> {"n1","n2","n3","n7","m01"}
local function expand(list)
    local out = {}
    local i, n = 1, #list
    while i <= n do
        -- one item: up to a comma outside brackets
        local depth, j = 0, i
        while j <= n do
            local c = list:sub(j, j)
            if c == "[" then
                depth = depth + 1
            elseif c == "]" then
                depth = depth - 1
            elseif c == "," and depth == 0 then
                break
            end
            j = j + 1
        end
        local item = list:sub(i, j - 1)
        local pre, ranges, post = item:match("^([^%[]*)%[([^%]]*)%](.*)$")
        if pre then
            for r in ranges:gmatch("[^,]+") do
                local a, b = r:match("^(%d+)-(%d+)$")
                if not a then
                    a, b = r, r
                end
                local width = #a
                for k = tonumber(a), tonumber(b) do
                    out[#out + 1] = pre .. string.format("%0" .. width .. "d", k) .. post
                end
            end
        elseif item ~= "" then
            out[#out + 1] = item
        end
        i = j + 1
    end
    return out
end

-- key=value pairs of one slurm.conf line (keys in lower case)
local function pairs_of(line)
    local t = {}
    for k, v in line:gmatch("([%w_]+)=(%S+)") do
        t[k:lower()] = v
    end
    return t
end

local nodes = {}      -- name -> {cpus=, mem=}
local all_nodes = {}  -- names, in order

local function add_nodes(t, default)
    local function num(key, dflt)
        return tonumber(t[key] or default[key] or dflt)
    end
    local cpus = num("cpus", nil)
    if not cpus then
        local boards = num("boards", 1)
        local sockets = num("socketsperboard", nil) or num("sockets", 1)
        cpus = boards * sockets * num("corespersocket", 1) * num("threadspercore", 1)
    end
    local mem = num("realmemory", 1)
    for _, name in ipairs(expand(t.nodename)) do
        if not nodes[name] then
            all_nodes[#all_nodes + 1] = name
        end
        nodes[name] = {cpus = cpus, mem = mem}
    end
end

local function read_conf(path, default)
    local f = io.open(path, "r")
    if not f then
        return
    end
    local dir = path:match("^(.*)/[^/]*$") or "."
    for line in f:lines() do
        line = line:gsub("#.*$", "")
        local inc = line:match("^%s*[Ii]nclude%s+(%S+)")
        if inc then
            if inc:sub(1, 1) ~= "/" then
                inc = dir .. "/" .. inc
            end
            read_conf(inc, default)
        elseif line:match("^%s*[Nn]ode[Nn]ame=") then
            local t = pairs_of(line)
            if t.nodename == "DEFAULT" then
                for k, v in pairs(t) do
                    default[k] = v
                end
            else
                add_nodes(t, default)
            end
        end
    end
    f:close()
end

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local conf = io.open(here .. "/slurm.conf", "r")
if conf then
    conf:close()
    read_conf(here .. "/slurm.conf", {})
elseif os.getenv("SLURM_CONF") then
    read_conf(os.getenv("SLURM_CONF"), {})
end

local function unset(v)
    return v == nil or v == slurm.NO_VAL or v == slurm.NO_VAL16 or v == slurm.NO_VAL64 or
               v == slurm.INFINITE or v == slurm.INFINITE16 or v == slurm.INFINITE64
end

-- The partitions a job may go to: its own, or the default one.
local function partitions_of(job_desc, part_list)
    local out = {}
    if job_desc.partition then
        for p in job_desc.partition:gmatch("[^,]+") do
            if part_list[p] then
                out[#out + 1] = part_list[p]
            end
        end
    else
        for _, p in pairs(part_list) do
            if p.flag_default == 1 then
                out[#out + 1] = p
            end
        end
    end
    return out
end

-- Why partition p's nodes could never hold the job (nil: they could).
local function why_not(job_desc, p)
    local names = (p.nodes == nil or p.nodes == "ALL") and all_nodes or expand(p.nodes)
    local cpt = unset(job_desc.cpus_per_task) and 1 or job_desc.cpus_per_task
    local tpn = unset(job_desc.ntasks_per_node) and 0 or job_desc.ntasks_per_node
    local tasks = unset(job_desc.num_tasks) and 0 or job_desc.num_tasks
    if tasks == 0 and not unset(job_desc.min_cpus) then
        tasks = math.ceil(job_desc.min_cpus / cpt)
    end
    local min_nodes = unset(job_desc.min_nodes) and 0 or job_desc.min_nodes
    if tpn > 0 and tasks < tpn * min_nodes then
        tasks = tpn * min_nodes
    end
    local mem_node = unset(job_desc.min_mem_per_node) and 0 or job_desc.min_mem_per_node
    local mem_cpu = unset(job_desc.min_mem_per_cpu) and 0 or job_desc.min_mem_per_cpu
    local per_node = math.max(tpn, 1)
    local largest, most_mem, holds, known = 0, 0, 0, 0
    for _, name in ipairs(names) do
        local n = nodes[name]
        if n then
            known = known + 1
            largest = math.max(largest, n.cpus)
            most_mem = math.max(most_mem, n.mem)
            local k = math.floor(n.cpus / cpt)
            if mem_cpu > 0 then
                k = math.min(k, math.floor(n.mem / (mem_cpu * cpt)))
            end
            if mem_node > n.mem then
                k = 0
            end
            if tpn > 0 then
                k = k >= tpn and tpn or 0
            end
            holds = holds + k
        end
    end
    if known == 0 then
        return nil -- nodes this file could not read: Slurm and moku judge
    end
    if cpt > largest then
        return string.format("a task needs %d CPUs on one node, the largest node of partition %s has %d",
                             cpt, p.name, largest)
    end
    if mem_node > most_mem then
        return string.format("it needs %d MB of memory on one node, the largest node of partition %s has %d MB",
                             mem_node, p.name, most_mem)
    end
    if mem_cpu * cpt * per_node > most_mem then
        return string.format("a node's share needs %d MB of memory, the largest node of partition %s has %d MB",
                             mem_cpu * cpt * per_node, p.name, most_mem)
    end
    if min_nodes > known then
        return string.format("it needs %d nodes, partition %s has %d", min_nodes, p.name, known)
    end
    if tasks > holds then
        return string.format("it asks for %d tasks of %d CPUs, the nodes of partition %s hold %d",
                             tasks, cpt, p.name, holds)
    end
    return nil
end

---------------------------------------------------------------- the hooks

function slurm_job_submit(job_desc, part_list, submit_uid)
    local parts = partitions_of(job_desc, part_list)
    local why = nil
    for _, p in ipairs(parts) do
        why = why_not(job_desc, p)
        if why == nil then
            break
        end
    end
    if why then
        slurm.log_user("moku: requested node configuration is not available: %s", why)
        return NODE_CONFIG_UNAVAILABLE
    end
    if job_desc.priority == 0 then -- sbatch --hold: the user's own hold
        job_desc.comment = add_mark(job_desc.comment)
    end
    job_desc.priority = 0
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    local prio = job_desc.priority
    if prio == nil or prio == slurm.NO_VAL then
        return slurm.SUCCESS -- neither a hold nor a release
    end
    local pending = job_rec.job_state % 256 == 0 -- JOB_PENDING, whatever its flags
    if modify_uid ~= 0 then
        if prio == 0 then -- the user's hold, kept as the mark moku reads
            if pending then
                job_desc.comment = add_mark(job_rec.comment)
            end
            return slurm.SUCCESS
        end
        if has_mark(job_rec.comment) then -- the release of the user's own hold
            job_desc.comment = drop_mark(job_rec.comment)
            job_desc.priority = slurm.NO_VAL -- it waits for moku again
            return slurm.SUCCESS
        end
        return slurm.ESLURM_ACCESS_DENIED -- nothing else: moku starts it
    end
    if prio == slurm.INFINITE and job_desc.req_nodes == nil and pending and job_rec.priority == 0 then
        -- an administrator's release: for moku to apply, not a start
        job_desc.priority = slurm.NO_VAL
        job_desc.admin_comment = RELEASE
    end
    return slurm.SUCCESS
end

slurm.log_info("moku job_submit.lua loaded: new jobs are held for moku (%d nodes known)", #all_nodes)
return slurm.SUCCESS
