// The upload form's drop zone and the validation page's live status.
// Plain JavaScript; without it the page still works (a normal file input,
// and the status page shows the state as of loading it).
(function () {
  "use strict";

  function setupDropzone(zone) {
    var input = zone.querySelector("input[type=file]");
    var chosen = zone.querySelector("[data-chosen]");
    var again = zone.querySelector("[data-choose-again]");
    if (!input) return;
    function show() {
      chosen.textContent = input.files.length ? "Chosen: " + input.files[0].name +
        " (" + input.files[0].size.toLocaleString() + " bytes)" : "";
      zone.classList.toggle("has-file", input.files.length > 0);
      if (again) again.hidden = input.files.length > 0;  // chosen again: the hint is done
    }
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (event) {
        event.preventDefault();
        zone.classList.add("dragging");
      });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("dragging"); });
    });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      var files = event.dataTransfer && event.dataTransfer.files;
      if (!files || !files.length) return;
      try {
        input.files = files;  // supported by current browsers
      } catch (err) {
        chosen.textContent = "This browser cannot take dropped files; use the button.";
        return;
      }
      show();
    });
    input.addEventListener("change", show);
    show();
  }

  function setupBotChoice(form) {
    var select = form.querySelector("select[name=bot]");
    var newBot = form.querySelector("[data-new-bot]");
    if (!select || !newBot) return;
    function toggle() { newBot.hidden = select.value !== ""; }
    select.addEventListener("change", toggle);
    toggle();
  }

  // Text is written only when it changes: a poll that finds nothing new
  // leaves the page (and screen readers) alone.
  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }
  function setClass(node, name) {
    if (node.className !== name) node.className = name;
  }

  function setupStatus(box) {
    var url = box.getAttribute("data-status-url");
    var delay = 1500, maxDelay = 10000, polls = 0, maxPolls = 400;
    function el(name) { return box.querySelector("[data-" + name + "]"); }
    var announced = el("status").textContent + " · " + el("progress").textContent;
    function render(state) {
      var status = el("status");
      setText(status, state.status_label);
      setClass(status, "status " + state.status);
      var c = state.validation_matches, total = 0;
      for (var k in c) { total += c[k]; }
      var text = c.finished + " of " + total + " validation matches finished";
      if (c.running) text += ", " + c.running + " running";
      if (c.queued) text += ", " + c.queued + " queued";
      if (c.cancelled) text += ", " + c.cancelled + " cancelled";
      text += ".";
      setText(el("progress"), text);
      el("spinner").hidden = state.done;
      el("rejected").hidden = state.status !== "rejected";
      setText(el("reason"), state.reject_reason);
      el("accepted").hidden = state.status !== "ready";
      setText(el("stderr"), state.stderr_tail);
      el("stderr-box").hidden = !state.stderr_tail;
      if (state.status === "rejected") el("stderr-box").open = true;
      // the one live region: a sentence when the status or the count changes
      var now = state.status_label + " · " + text;
      if (now !== announced) {
        announced = now;
        var news = "Validation: " + state.status_label + ". " + text;
        if (state.status === "rejected") news += " " + state.reject_reason;
        if (state.status === "ready") news += " This version now plays on the ladder.";
        el("announce").textContent = news;
      }
      // the list of validation matches below the box follows too
      (state.matches || []).forEach(function (m) {
        var item = document.querySelector('[data-match="' + m.id + '"]');
        if (!item) return;
        var badge = item.querySelector("[data-match-status]");
        setText(badge, m.status);
        setClass(badge, "status " + m.status);
        setText(item.querySelector("[data-match-reason]"), m.reason ? "· " + m.reason : "");
      });
    }
    function poll() {
      polls += 1;
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.json();
        })
        .then(function (state) {
          render(state);
          if (!state.done && polls < maxPolls) setTimeout(poll, delay);
        })
        .catch(function () {
          delay = Math.min(maxDelay, delay * 2);  // server busy or offline: back off
          if (polls < maxPolls) setTimeout(poll, delay);
        });
    }
    if (!el("spinner").hidden) setTimeout(poll, delay);
  }

  document.querySelectorAll("[data-dropzone]").forEach(setupDropzone);
  document.querySelectorAll("form.upload-form").forEach(setupBotChoice);
  document.querySelectorAll("[data-status-url]").forEach(setupStatus);
})();
