/* global document, AutodidactCharts */
// Boot script of a static report (inlined by writeReport): reads the inline JSON and draws the runs table and charts.
;(function () {
  "use strict"
  const data = JSON.parse(document.getElementById("report-data").textContent)
  const meta = document.getElementById("meta")
  meta.textContent = data.root + " · " + data.runs.length + " runs · generated " + data.generatedAt
  const tbody = document.querySelector("#runs tbody")
  const cols = ["name", "env", "algo", "seed", "steps", "episodes", "bestReturn", "lastReturn", "meanReturnLast100", "wallSeconds", "status"]
  for (const r of data.runs) {
    const tr = document.createElement("tr")
    for (const k of cols) {
      const td = document.createElement("td")
      const v = r[k]
      td.textContent = v == null ? "" : typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : String(v)
      if (typeof v === "number") td.className = "num"
      tr.appendChild(td)
    }
    tbody.appendChild(tr)
  }
  // cluster runs: the latest row of each runner (see the dashboard's runners panel)
  const runnersHost = document.getElementById("runners")
  for (const v of data.runners || []) {
    const section = document.createElement("section")
    const h = document.createElement("h2")
    h.textContent = "Cluster runners · " + v.run + " · step " + v.globalStep
    section.appendChild(h)
    const t = document.createElement("table")
    t.className = "runs"
    t.dataset.run = v.run
    const head = ["runner", "episodes", "steps", "episodes/s", "steps/s", "mean lag", "max lag", "failures", "storage retries"]
    t.innerHTML = "<thead><tr></tr></thead><tbody></tbody>"
    for (const x of head) t.tHead.rows[0].appendChild(document.createElement("th")).textContent = x
    for (const r of v.runners) {
      const tr = t.tBodies[0].insertRow()
      const cells = [r.runner, r.episodes, r.steps, r.episodesPerSecond.toFixed(2), r.stepsPerSecond.toFixed(1), r.meanPolicyLag.toFixed(2), r.maxPolicyLag, r.failures, r.storageRetries]
      cells.forEach((c, i) => {
        const td = tr.insertCell()
        td.textContent = String(c)
        if (i > 0) td.className = "num"
      })
    }
    section.appendChild(t)
    const p = document.createElement("p")
    p.textContent = "run-wide: " + v.sendRetries + " send retries, " + v.duplicatesDropped + " duplicate replies dropped"
    section.appendChild(p)
    runnersHost.appendChild(section)
  }
  const host = document.getElementById("charts")
  for (const c of data.charts) {
    const section = document.createElement("section")
    const el = document.createElement("div")
    el.className = "chart"
    section.appendChild(el)
    host.appendChild(section)
    AutodidactCharts.render(el, c.result, { mode: c.mode, spread: "std", logY: c.logY, logX: c.logX, xLabel: c.xLabel, title: c.title, width: 900, height: 320 })
  }
  document.body.dataset.ready = "1"
})()
