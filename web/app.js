fetch("/api/session").then(r=>r.json()).then(s=>{document.getElementById("out").textContent=JSON.stringify(s)});
