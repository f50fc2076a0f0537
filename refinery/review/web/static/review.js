// The review page's behaviour: live checks of every edit, single-key decisions, confirmations.
// Dataset text reaches the page only as textContent and input values, never as HTML, and the
// server's Content-Security-Policy forbids inline script: this file is the only script.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($("item-data").textContent);
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const reviewer = $("reviewer");
  reviewer.value = localStorage.getItem("refinery-reviewer") || data.reviewer || "";
  reviewer.addEventListener("change", () =>
    localStorage.setItem("refinery-reviewer", reviewer.value.trim()),
  );
  const help = $("help-dialog");
  $("help-button").addEventListener("click", () => help.showModal());
  if (data.empty) {
    document.addEventListener("keydown", (event) => {
      if (event.key === "?" && !document.querySelector("dialog[open]")) help.showModal();
    });
    return;
  }

  const boxes = [...document.querySelectorAll(".fol-input")];
  const initial = boxes.map((box) => box.value);
  const note = $("note");
  note.value = data.note || "";
  let label = data.draft_label;
  let leaving = false; // set once the page itself navigates: no "unsaved draft" question then
  const check = { seq: 0, pending: true, clean: false, reply: null };

  const say = (text, kind = "") => {
    $("message").textContent = text;
    $("message").className = "message " + kind;
  };
  const dirty = () =>
    boxes.some((box, i) => box.value !== initial[i]) ||
    label !== data.draft_label ||
    note.value.trim() !== (data.note || "").trim();

  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      credentials: "same-origin",
      body: JSON.stringify(body),
    });
    const text = await response.text();
    try {
      return [response.status, JSON.parse(text)];
    } catch {
      return [response.status, { status: "refused", problems: [text] }];
    }
  }

  // -- the live check ----------------------------------------------------------------------
  let timer = null;
  function scheduleCheck() {
    check.seq += 1;
    check.pending = true;
    $("verdict").textContent = "checking…";
    $("save").disabled = true;
    clearTimeout(timer);
    timer = setTimeout(runCheck, 150);
  }

  async function runCheck() {
    const seq = check.seq;
    const [status, reply] = await post("/api/check", {
      id: data.id,
      fol: boxes.map((box) => box.value),
      label, // the evidence explains the provers' label against this one
    });
    if (seq !== check.seq) return; // a newer edit is being checked
    check.pending = false;
    check.reply = reply;
    check.clean = status === 200 && reply.clean;
    showCheck(status, reply);
  }

  function item(list, text, kind = "") {
    const li = document.createElement("li");
    li.textContent = text;
    if (kind) li.className = kind;
    list.append(li);
  }

  // a countermodel as small tables: one row per one-place predicate, a grid per two-place one
  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    td.className = { "✓": "holds", "✗": "fails" }[text] || "unsaid";
    row.append(td);
  }
  function table(corner, columns, rows) {
    const t = document.createElement("table");
    t.className = "model";
    const head = t.createTHead().insertRow();
    for (const name of [corner, ...columns]) {
      const th = document.createElement("th");
      th.textContent = name;
      head.append(th);
    }
    const body = t.createTBody();
    for (const [name, cells, text] of rows) {
      const tr = body.insertRow();
      const th = document.createElement("th");
      th.textContent = name;
      tr.append(th);
      if (cells) cells.forEach((c) => cell(tr, c));
      else {
        const td = tr.insertCell();
        td.colSpan = columns.length;
        td.textContent = text;
      }
    }
    return t;
  }
  function modelView(model) {
    const div = document.createElement("div");
    div.className = "model";
    const head = document.createElement("p");
    head.className = "model-head";
    head.textContent = `${model.head} — ${model.tail}`;
    const rows = [
      ...model.unary.map((r) => [r.name, r.cells]),
      ...model.others.map((r) => [r.name, null, r.text]),
    ];
    if (model.empty.length) rows.push(["nothing", null, model.empty.join(", ")]);
    if (model.cut) rows.push(["not shown", null, model.cut]);
    const tables = document.createElement("div");
    tables.className = "tables";
    tables.append(table("element", model.elements, rows));
    for (const grid of model.binary) {
      const t = table(grid.name, model.elements, grid.cells.map((c, i) => [model.elements[i], c]));
      t.createCaption().textContent = `${grid.name}(row, column)`;
      tables.append(t);
    }
    div.append(head, tables);
    if (model.aliases.length) {
      const p = document.createElement("p");
      p.className = "aliases";
      p.textContent = model.aliases.map(([e, names]) => `${e} is also ${names.join(", ")}`).join("; ");
      div.append(p);
    }
    return div;
  }
  // evidence lines as text, each countermodel among them as its tables
  function showEvidence(container, lines, models) {
    container.replaceChildren(
      ...lines.map((line, i) => {
        const el = document.createElement(container.tagName === "UL" ? "li" : "div");
        if (models[i]) el.append(modelView(models[i]));
        else el.textContent = line;
        return el;
      }),
    );
  }
  if ($("why")) showEvidence($("why"), data.evidence, data.evidence_models);

  function showCheck(status, reply) {
    for (const box of boxes) {
      box.classList.remove("bad");
      box.removeAttribute("aria-invalid");
    }
    for (const pre of document.querySelectorAll("pre.caret")) pre.hidden = true;
    for (const list of document.querySelectorAll("ul.issues")) list.replaceChildren();
    const verdict = $("verdict");
    verdict.className = "verdict";
    if (status !== 200) {
      verdict.textContent = "not checked: " + (reply.error || reply.problems || status);
      return;
    }
    for (const error of reply.errors) {
      const box = boxes[error.index] || boxes[0];
      box.classList.add("bad");
      box.setAttribute("aria-invalid", "true");
      const pre = document.querySelector(`pre.caret[data-index="${box.dataset.index}"]`);
      const line = error.source.split("\n")[error.line - 1] || "";
      pre.textContent = line + "\n" + " ".repeat(Math.max(0, error.column - 1)) + "^ " + error.message;
      pre.hidden = false;
    }
    for (const issue of reply.lint) {
      const list = document.querySelector(`ul.issues[data-index="${issue.index}"]`);
      if (!list) continue;
      item(list, `${issue.severity}: ${issue.kind}: ${issue.message}`, issue.severity);
      if (issue.severity === "error") boxes[issue.index].classList.add("bad"); // blocks saving
    }
    const each = Object.entries(reply.labels).map(([name, l]) => `${name}=${l}`).join(", ");
    if (!reply.parses) {
      verdict.textContent = "syntax error: the draft cannot be saved until it parses";
      verdict.classList.add("bad");
    } else if (reply.lint.some((issue) => issue.severity === "error")) {
      verdict.textContent = "lint errors: the provers are asked once they are fixed";
      verdict.classList.add("bad");
    } else if (reply.label) {
      verdict.textContent = `both provers: ${reply.label} (${each})`;
      verdict.classList.add(reply.label === label ? "good" : "warn");
      if (reply.label !== label) {
        verdict.textContent += ` — your label is ${label}: a note must say why`;
      }
    } else {
      verdict.textContent = `the provers do not agree (${each || "no answer"})`;
      verdict.classList.add("warn");
    }
    const evidence = $("evidence");
    evidence.hidden = !reply.evidence;
    showEvidence(evidence, reply.evidence ? reply.evidence.split("\n") : [], reply.models || []);
    $("save").disabled = !check.clean;
  }

  // -- labels, dialogs ---------------------------------------------------------------------
  function setLabel(value) {
    label = value;
    $("draft-label").textContent = value;
    const change = $("label-change");
    change.hidden = value === data.gold;
    change.textContent = `${data.gold} → ${value}`;
    if (check.reply && !check.pending) showCheck(200, check.reply);
  }

  function ask(dialog, keys) {
    // a modal dialog answered by a click or one of `keys` (key -> returned value)
    return new Promise((resolve) => {
      dialog.returnValue = "";
      // listened for on the document, not the dialog: a key pressed before focus has moved
      // into the dialog must still answer it
      const onKey = (event) => {
        if (dialog.open && event.key in keys && !event.target.matches("textarea")) {
          event.preventDefault();
          event.stopPropagation();
          dialog.close(keys[event.key]);
        }
      };
      document.addEventListener("keydown", onKey, true);
      dialog.addEventListener(
        "close",
        () => {
          document.removeEventListener("keydown", onKey, true);
          resolve(dialog.returnValue);
        },
        { once: true },
      );
      dialog.showModal();
    });
  }

  async function chooseLabel() {
    const value = await ask($("label-dialog"), { t: "True", f: "False", u: "Uncertain" });
    if (value) {
      setLabel(value);
      say(`label set to ${value} in the draft; w saves it`);
    }
  }

  async function go(url) {
    if (!url) return;
    if (dirty() && (await ask($("leave-dialog"), { y: "yes", n: "no" })) !== "yes") return;
    leaving = true;
    window.location.href = url;
  }

  async function confirmAndSave(decision, reply) {
    const dialog = $("confirm-dialog");
    $("confirm-title").textContent = reply.change ? "Change the label" : "A note is required";
    $("confirm-change").textContent = reply.change || "";
    $("confirm-problems").replaceChildren();
    for (const problem of reply.problems) item($("confirm-problems"), problem);
    const why = $("confirm-note");
    why.value = note.value;
    const onKey = (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        dialog.close("ok");
      }
    };
    why.addEventListener("keydown", onKey);
    setTimeout(() => why.focus(), 0);
    const answer = await ask(dialog, {});
    why.removeEventListener("keydown", onKey);
    if (answer !== "ok") {
      say("not saved: nothing changed");
      return;
    }
    if (reply.needs_note && !why.value.trim()) {
      say("not saved: a note is required", "bad");
      return;
    }
    note.value = why.value;
    await decide(decision, reply.change);
  }

  // -- decisions ---------------------------------------------------------------------------
  async function decide(decision, confirm = "") {
    if (decision === "draft" && (check.pending || !check.clean)) {
      const why = check.pending ? "the check is still running" : "fix the FOL first (marked above)";
      say(`not saved: ${why}`, "bad");
      return;
    }
    say("saving…");
    const [status, reply] = await post("/api/decide", {
      id: data.id,
      decision,
      fol: boxes.map((box) => box.value),
      label,
      note: note.value,
      reviewer: reviewer.value.trim(),
      seen: data.seen,
      confirm,
    });
    if (reply.status === "saved") {
      say(`saved: ${reply.decision}`, "good");
      leaving = true;
      window.location.href = data.next_open_url;
    } else if (reply.status === "confirm") {
      say("");
      await confirmAndSave(reply.decision || decision, reply);
    } else if (reply.status === "conflict") {
      say(reply.message + " Reload to see both versions.", "bad");
    } else {
      say("not saved: " + (reply.problems || [reply.error || status]).join("\n"), "bad");
    }
  }

  const actions = {
    a: () => decide("accept_proposal"),
    k: () => decide("keep_original"),
    s: () => decide("skip"),
    w: () => decide("draft"),
    e: () => {
      const box = boxes.find((b) => b.classList.contains("bad")) || boxes[0];
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
    },
    p: () => {
      // the proposal into the boxes, to edit: never there by itself (the tool is unsure of it)
      if (!data.proposed_fol.length) return;
      boxes.forEach((box, i) => {
        box.value = data.proposed_fol[i];
        fit(box);
      });
      scheduleCheck();
      say("the boxes hold the proposal now: edit it, then w saves it");
    },
    u: async () => {
      const [, reply] = await post("/api/undo", { id: data.id, seen: data.seen });
      if (reply.status === "undone") {
        leaving = true;
        window.location.reload(); // the item as the queue now has it, history and all
      } else {
        say("not undone: " + (reply.problems || [reply.message || "?"]).join("\n"), "bad");
      }
    },
    f: async () => {
      // the premises edited here, for every other open item of the story that holds them
      if (!data.story_open.length) return;
      say("fixing the story…");
      const [status, reply] = await post("/api/story-fix", {
        id: data.id,
        fol: boxes.map((box) => box.value),
        reviewer: reviewer.value.trim(),
      });
      if (status !== 200) {
        say("not applied: " + (reply.problems || [reply.error || status]).join("\n"), "bad");
        return;
      }
      const drafted = Object.entries(reply.drafted).map(([id, why]) => `${id} (${why.join("; ")})`);
      say(
        `story: ${reply.saved.length} saved as edits` +
          (reply.saved.length ? ` (${reply.saved.join(", ")})` : "") +
          `; ${drafted.length} left as drafts to confirm` +
          (drafted.length ? `: ${drafted.join(", ")}` : "") +
          (reply.saved.length + drafted.length ? "" : " (none holds these premises)"),
        "good",
      );
    },
    l: chooseLabel,
    n: () => note.focus(),
    j: () => go(data.next_url),
    b: () => go(data.prev_url),
    "?": () => help.showModal(),
  };

  document.addEventListener("keydown", (event) => {
    if (document.querySelector("dialog[open]")) return; // a dialog answers its own keys
    const target = event.target;
    if (target.matches("input, textarea, select")) {
      if (event.key === "Escape") target.blur();
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target !== reviewer) {
        event.preventDefault();
        target.blur();
        actions.w();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || !(event.key in actions)) return;
    event.preventDefault();
    actions[event.key]();
  });
  for (const button of document.querySelectorAll("nav.actions button")) {
    button.addEventListener("click", () => actions[button.dataset.key]());
  }
  // each box wraps and grows to show its whole formula; a formula is one line, so Enter adds
  // no line break (Ctrl+Enter saves) and a pasted one is joined
  function fit(box) {
    box.style.height = "auto";
    box.style.height = box.scrollHeight + 2 + "px";
  }
  for (const box of boxes) {
    box.addEventListener("input", () => {
      if (/[\r\n]/.test(box.value)) box.value = box.value.replace(/\s*[\r\n]+\s*/g, " ");
      fit(box);
      scheduleCheck();
    });
    box.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !(event.ctrlKey || event.metaKey)) event.preventDefault();
    });
    fit(box);
  }
  window.addEventListener("resize", () => boxes.forEach(fit));
  // a box whose width changes without the window's (the layout settling, a wrapped header)
  // is fitted again, in the next frame: resizing it inside the observer's own callback would
  // leave the observer notifications it cannot deliver
  const widths = new WeakMap();
  const observer = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const box = entry.target;
      if (widths.get(box) === box.clientWidth) continue;
      widths.set(box, box.clientWidth);
      requestAnimationFrame(() => fit(box));
    }
  });
  boxes.forEach((box) => observer.observe(box));
  window.addEventListener("beforeunload", (event) => {
    if (dirty() && !leaving) event.preventDefault();
  });
  setLabel(label);
  scheduleCheck();
})();
