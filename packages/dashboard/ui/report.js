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
