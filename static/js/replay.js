/* Gem Arena replay viewer — plain JS, no build step.
 *
 * Markup: templates/ladder/_replay_viewer.html. Data: ladder/views_replay.py
 * (frames.json for a finished match, live.json?after=N while it runs).
 * Each game draws a frame with a renderer registered in
 * GemReplay.renderers[game id] (static/js/replay_<game>.js):
 *     render(boardElement, frame, ctx)   ctx: see Viewer.context()
 *     describe(frame, ctx)               optional: the step's words where the
 *                                        server's are out of date, else null
 * A renderer shows every colour with a letter too, and puts the position in
 * words for screen readers (ctx.vh(text): visually hidden text) wherever
 * the drawing is colours and symbols, hiding those with aria-hidden.
 *
 * DOM hooks (stable, for browser tests):
 *   #replay                 the viewer; data-state = loading | replay | live |
 *                           waiting | error, data-step = the frame shown,
 *                           data-steps = the last frame number, data-playing =
 *                           "true" while the view moves by itself (playing, or
 *                           following a live match), data-following = "true"
 *                           while a live view stays at the newest step
 *   #replay-first, #replay-prev, #replay-play, #replay-next, #replay-last
 *                           buttons, disabled until there is a step to show;
 *                           #replay-play has data-playing too and its label
 *                           reads "Play" or "Pause" (no aria-pressed: the
 *                           label is the state)
 *   #replay-speed           <select>, value = milliseconds per step
 *   #replay-seat            <select> "View as": "" = everyone (the public
 *                           view), N = what seat N could observe
 *                           (frames.json?seat=N). While the match is live
 *                           only the seats in data-notes-seats (the user's
 *                           own bots', every seat for staff) can be chosen
 *                           (live.json?seat=N); with none it is disabled.
 *                           #replay has data-view-seat = "" or N, the view
 *                           the board shows
 *   #replay-slider          <input type=range>, value = frame number
 *   #replay-step            "Step N / M" (data-step = N)
 *   #replay-action          the current action in words (data-seat = acting
 *                           seat); not a live region: #replay-announce is
 *   #replay-announce        (visually hidden, role=status) the step's text,
 *                           set only when a user moved or paused, never by
 *                           playback or a live poll
 *   #replay-news            (visually hidden, role=status) the match's status
 *                           changes and the viewer's errors, each said once
 *   #replay-note            a debug note at this step (hidden when none): its
 *                           label .replay-note-label ("Your bot's debug note:"
 *                           for the seats in data-own-seats, "Debug note of
 *                           <bot>:" for staff reading another's), its text
 *                           #replay-note-text
 *   #replay-live            the "live" badge (hidden unless the match runs)
 *   #replay-status          messages: loading, waiting for a worker, errors
 *                           (shown; errors are also said by #replay-news)
 *   #replay-played-as       the bots renamed since the match, with the names
 *                           they played it under (players[].played_as;
 *                           hidden when none was renamed)
 *   #replay-board           the game drawing (data-game = game id)
 *
 * URL: #step=N (or ?step=N on load) selects a frame; the hash follows the
 * position whenever playback is paused (a live view following the newest
 * step has none), so the address can be shared. ?seat=N chooses the seat
 * view, and follows the "View as" control.
 * Page: when the live view sees the match change status (queued → running →
 * finished, errored, cancelled) it fetches the page again and swaps in the
 * elements marked data-refresh="…" (templates/ladder/match.html: title,
 * result, seats, faults, download, stderr); the viewer itself is kept, and
 * so is the keyboard focus: moved to its counterpart in the new block (same
 * id or link), else to the new block itself.
 * Keys, only while the focus is inside #replay (tabindex=-1: a click on the
 * board focuses it): ← → previous/next, Home/End first/last, Space
 * play/pause — except on a button, link or summary, whose own Space works.
 */
(function () {
  "use strict";

  var GemReplay = (window.GemReplay = window.GemReplay || {});
  GemReplay.renderers = GemReplay.renderers || {};

  var LIVE_POLL_MS = 1500;
  var QUEUED_POLL_MS = 4000;

  /* h("div", {class: "x", "data-card": id}, child, "text", [more]) — an
   * element; strings become text nodes (never parsed as HTML: bot names and
   * notes are untrusted). Attributes with null/false values are left out. */
  function h(tag, attrs) {
    var el = tag.indexOf(":svg") > 0
      ? document.createElementNS("http://www.w3.org/2000/svg", tag.split(":")[0])
      : document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === null || value === undefined || value === false) return;
        if (key === "text") el.textContent = String(value);
        else el.setAttribute(key, value === true ? "" : String(value));
      });
    }
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }

  function append(el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(el, c); });
    else if (typeof child === "object") el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }

  GemReplay.h = h;

  /* Words for screen readers where the drawing says it in colours and
   * symbols (the drawing is then aria-hidden): read, not shown. */
  function vh(text) {
    return h("span", { class: "r-vh", text: text });
  }

  /* "seat 2 takes …" → "carl-search takes …" */
  GemReplay.withNames = function (text, name) {
    return String(text || "").replace(/\bseat (\d+)\b/g, function (_, n) { return name(Number(n)); });
  };

  function stepFromUrl() {
    var hash = /(?:^#|&)step=(\d+)/.exec(window.location.hash);
    if (hash) return Number(hash[1]);
    var query = /[?&]step=(\d+)/.exec(window.location.search);
    return query ? Number(query[1]) : null;
  }

  function seatFromUrl() {
    var query = /[?&]seat=(\d+)(?:&|$)/.exec(window.location.search);
    return query ? query[1] : "";
  }

  function Viewer(root) {
    this.root = root;
    this.game = root.getAttribute("data-game");
    this.framesUrl = root.getAttribute("data-frames-url");
    this.liveUrl = root.getAttribute("data-live-url");
    this.frames = [];
    this.players = [];
    this.gameData = {};
    this.outcome = null;
    this.faults = [];
    this.index = 0;
    this.playing = false;
    this.following = true;
    this.timer = null;
    this.pollTimer = null;
    this.sayTimer = null;
    this.attempt = null;
    this.run = null;
    this.pageStatus = root.getAttribute("data-status");
    this.ownSeats = (root.getAttribute("data-own-seats") || "").split(",").filter(Boolean).map(Number);
    // seats whose view of a running match this user may see (live.json checks it again)
    this.liveSeats = (root.getAttribute("data-notes-seats") || "").split(",").filter(Boolean);
    this.liveTicket = 0;
    this.nextTick = 0;
    this.mode = "loading";
    this.wanted = stepFromUrl();
    this.seat = seatFromUrl(); // "" = everyone, else a seat number as text
    this.loaded = {}; // frames.json answers by seat ("" = everyone)
    this.loadCount = 0;
    this.el = {};
    var ids = ["first", "prev", "play", "next", "last", "speed", "seat", "slider", "step", "action",
      "announce", "news", "note", "note-label", "note-text", "live", "status", "played-as", "board"];
    for (var i = 0; i < ids.length; i++) this.el[ids[i]] = document.getElementById("replay-" + ids[i]);
    this.bind();
    var status = root.getAttribute("data-status");
    if (status === "queued" || status === "running") this.startLive();
    else this.loadFrames();
  }

  Viewer.prototype.bind = function () {
    var self = this;
    this.el.first.addEventListener("click", function () { self.userGo(0); });
    this.el.prev.addEventListener("click", function () { self.userGo(self.index - 1); });
    this.el.next.addEventListener("click", function () { self.userGo(self.index + 1); });
    this.el.last.addEventListener("click", function () { self.userGo(self.frames.length - 1); });
    this.el.play.addEventListener("click", function () { self.toggle(); });
    this.el.slider.addEventListener("input", function () { self.userGo(Number(self.el.slider.value)); });
    this.el.speed.addEventListener("change", function () { if (self.playing) self.schedule(); });
    if (this.el.seat) this.el.seat.addEventListener("change", function () { self.viewAs(self.el.seat.value); });
    this.root.addEventListener("keydown", function (event) { self.onKey(event); });
    window.addEventListener("hashchange", function () {
      var step = stepFromUrl();
      if (step !== null && step !== self.index) self.userGo(step);
    });
  };

  /* The single-key shortcuts belong to the viewer: they act only while the
   * focus is inside it (a control, or the viewer itself after a click on the
   * board), so the page keeps its own Space, arrows, Home and End. A button,
   * link or summary keeps its own Space: ▶ steps, Play plays. */
  Viewer.prototype.onKey = function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    var target = event.target;
    var tag = target && target.tagName;
    if (tag === "INPUT" && target !== this.el.slider) return;
    if (tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) return;
    var key = event.key;
    if (key === " " || key === "Spacebar") {
      if (tag === "BUTTON" || tag === "A" || tag === "SUMMARY") return;
      if (!this.frames.length) return;
      this.toggle();
    } else if (target === this.el.slider || !this.frames.length) {
      return; // the slider moves itself with the arrows, Home and End
    } else if (key === "ArrowLeft") this.userGo(this.index - 1);
    else if (key === "ArrowRight") this.userGo(this.index + 1);
    else if (key === "Home") this.userGo(0);
    else if (key === "End") this.userGo(this.frames.length - 1);
    else return;
    event.preventDefault();
  };

  // -- loading ------------------------------------------------------------

  Viewer.prototype.fetchJson = function (url) {
    return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.json().then(
          function (body) { return { status: response.status, body: body }; },
          function () { return { status: response.status, body: { error: "the server answered " + response.status } }; }
        );
      });
  };

  /* Shows the replay as seat `seat` saw it ("" = everyone), at the same
   * step; the address keeps ?seat=N so the view can be shared. */
  Viewer.prototype.viewAs = function (seat) {
    if (seat === this.seat) return;
    this.seat = seat;
    if (this.mode === "live" || this.mode === "waiting") {
      // the live frames again, as that seat sees them: still following the
      // newest step, or at the same step
      this.playing = false;
      clearTimeout(this.timer);
      this.timer = null;
      if (this.mode === "live" && !this.following) this.wanted = this.index;
      this.frames = [];
      this.setMode(this.mode);
      this.saveUrl();
      this.message(this.liveSeat() === "" ? "Loading the live match…" : "Loading the live match as seat " + seat + " sees it…");
      this.poll();
    } else {
      this.pause();
      if (this.mode === "replay") this.wanted = this.index;
      this.saveUrl();
      this.loadFrames();
    }
    var option = this.el.seat.options[this.el.seat.selectedIndex];
    if (option) this.say("Viewing as " + option.text + ".");
  };

  Viewer.prototype.loadFrames = function () {
    var self = this;
    var seat = this.seat;
    if (this.el.seat && seat !== "" && !this.el.seat.querySelector('option[value="' + seat + '"]')) {
      this.seat = seat = "";
      this.saveUrl();
    }
    var ticket = ++this.loadCount; // a later choice wins over an answer still on its way
    if (this.loaded[seat]) { this.showFrames(this.loaded[seat]); return; }
    this.message(seat === "" ? "Loading the replay…" : "Loading the replay as seat " + seat + " saw it…");
    var url = this.framesUrl + (seat === "" ? "" : (this.framesUrl.indexOf("?") < 0 ? "?" : "&") + "seat=" + seat);
    this.fetchJson(url).then(function (r) {
      if (ticket !== self.loadCount) return;
      if (r.status === 200) {
        self.loaded[seat] = r.body;
        self.showFrames(r.body);
      } else if (r.status === 409 && r.body.live_url) {
        self.startLive();
      } else {
        self.setMode("error");
        self.message(r.body.error || "The replay cannot be shown.", true);
      }
    }, function () {
      self.setMode("error");
      self.message("The replay could not be loaded (network error). Reload the page to try again.", true);
    });
  };

  /* A frames.json answer on the board, at the step wanted (or where the
   * live view was). */
  Viewer.prototype.showFrames = function (body) {
    // we watched it live until now: at least one live frame was shown
    // (a match still queued at the last poll starts at step 0)
    var fromLive = this.attempt !== null && this.frames.length > 0;
    var keep = this.index;
    this.frames = body.frames;
    this.setPlayers(body.players);
    this.gameData = body.game_data || {};
    this.outcome = body.outcome || null;
    this.faults = body.faults || [];
    this.setMode("replay");
    this.message("");
    var start = 0;
    if (this.wanted !== null) start = this.wanted;
    else if (fromLive) start = this.following ? this.frames.length - 1 : keep;
    this.wanted = null;
    if (this.el.seat) this.el.seat.value = this.seat;
    this.go(start, true);
  };

  Viewer.prototype.startLive = function () {
    this.setMode("live");
    this.message("Connecting to the live match…");
    this.poll();
  };

  /* The seat whose live view is shown: the one chosen if this user may see
   * it while the match runs, else "" (everyone). */
  Viewer.prototype.liveSeat = function () {
    return this.liveSeats.indexOf(this.seat) >= 0 ? this.seat : "";
  };

  Viewer.prototype.poll = function () {
    var self = this;
    clearTimeout(this.pollTimer);
    var ticket = ++this.liveTicket; // a seat chosen since wins over an answer on its way
    var after = this.frames.length - 1;
    var url = this.liveUrl + (this.liveUrl.indexOf("?") < 0 ? "?" : "&") + "after=" + after;
    if (this.liveSeat() !== "") url += "&seat=" + this.liveSeat();
    this.fetchJson(url).then(function (r) {
      if (ticket !== self.liveTicket) return;
      if (r.status !== 200) {
        self.setMode("error");
        self.message(r.body.error || "The live view is not available.", true);
        return;
      }
      self.onLive(r.body);
    }, function () {
      if (ticket !== self.liveTicket) return;
      self.message("Connection lost; retrying…", true);
      self.pollTimer = setTimeout(function () { self.poll(); }, QUEUED_POLL_MS);
    });
  };

  Viewer.prototype.onLive = function (body) {
    var self = this;
    this.setPlayers(body.players);
    if (body.status && body.status !== this.pageStatus) {
      this.pageStatus = body.status;
      this.refreshPage(body.status);
    }
    if (body.frames_url) { // over: the stored replay takes over
      this.framesUrl = body.frames_url;
      this.message("The match is over; loading the replay…");
      this.loadFrames();
      return;
    }
    if (body.status === "errored" || body.status === "cancelled") {
      this.setMode("error");
      this.message(body.status === "errored"
        ? "The match stopped because of a platform error; it is not rated."
        : "The match was cancelled.");
      return;
    }
    if ((this.attempt !== null && body.attempt !== this.attempt) ||
        (this.run && body.run && body.run !== this.run)) {
      // played again after a platform fault (a new run, its attempt counted
      // or given back): start over, following the new run; the old position
      // (and its #step) is gone
      this.frames = [];
      this.index = 0;
      this.following = true;
      this.update();
      if (!this.playing) this.saveUrl();
    }
    this.attempt = body.attempt;
    if (body.run) this.run = body.run;
    if (body.game_data) this.gameData = body.game_data;
    if (body.status === "queued") {
      this.setMode("waiting");
      this.message("Waiting for a worker to start this match…");
      this.pollTimer = setTimeout(function () { self.poll(); }, QUEUED_POLL_MS);
      return;
    }
    this.setMode("live");
    var grew = false;
    (body.frames || []).forEach(function (frame) {
      if (frame.step === self.frames.length) { self.frames.push(frame); grew = true; }
    });
    this.message(this.frames.length ? "" : "The match has started; waiting for the first moves…");
    if (grew) {
      if (this.wanted !== null && (this.wanted < this.frames.length || !body.more)) {
        this.following = false; // a shared position: stay there
        this.go(Math.min(this.wanted, this.frames.length - 1), true);
        this.wanted = null;
      } else if (this.following && !this.playing) {
        this.go(this.frames.length - 1, true);
      } else {
        this.update();
      }
      if (this.playing && !this.timer) this.schedule();
    }
    this.pollTimer = setTimeout(function () { self.poll(); }, body.more ? 0 : LIVE_POLL_MS);
  };

  /* The server-rendered parts of the page (title, result, seats, download
   * link …) as they are now: the page is fetched again and each element
   * marked data-refresh="name" is replaced by its namesake. The HTML is our
   * own origin's, rendered and escaped by the server; its scripts never run
   * (DOMParser). Without JavaScript a reload does the same. The news (the
   * new status, with the result's reason once over) is said once, after the
   * swap; the keyboard focus never drops to <body> (see refocus). */
  Viewer.prototype.refreshPage = function (status) {
    var self = this;
    function tell(reason) { self.news(statusNews(status, reason)); }
    if (!window.DOMParser || !document.querySelector("[data-refresh]")) { tell(""); return; }
    var url = window.location.pathname + window.location.search;
    fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) { tell(""); return; }
        var fresh = new DOMParser().parseFromString(html, "text/html");
        var focused = document.activeElement;
        var moved = null;
        var stale = document.querySelectorAll("[data-refresh]");
        for (var i = 0; i < stale.length; i++) {
          var name = stale[i].getAttribute("data-refresh");
          var next = fresh.querySelector('[data-refresh="' + name + '"]');
          if (!next) continue;
          var block = document.importNode(next, true);
          if (focused && stale[i].contains(focused)) moved = { old: stale[i], block: block };
          stale[i].parentNode.replaceChild(block, stale[i]);
        }
        if (moved) refocus(focused, moved.old, moved.block);
        var reason = fresh.querySelector(".result-reason");
        tell(reason ? reason.textContent.trim() : "");
      })
      .catch(function () { tell(""); /* the page stays as it was; a reload shows the rest */ });
  };

  /* What a screen reader hears when the live view sees the status change. */
  function statusNews(status, reason) {
    if (status === "running") return "The match has started.";
    if (status === "finished") return "The match is over." + (reason ? " " + reason + "." : "");
    if (status === "errored") return "The match stopped because of a platform error; it is not rated.";
    if (status === "cancelled") return "The match was cancelled.";
    return "The match is " + status + ".";
  }

  /* The focus was in a block that refreshPage replaced: give it to the same
   * control in the new block (same id, or the same link: the n-th with that
   * href), or else to the new block itself. */
  function refocus(focused, oldBlock, newBlock) {
    var target = null;
    if (focused !== oldBlock && focused.id) {
      var same = document.getElementById(focused.id);
      if (same && newBlock.contains(same)) target = same;
    }
    var href = focused.getAttribute && focused.getAttribute("href");
    if (!target && href !== null && href !== undefined) {
      var withHref = function (block) {
        return Array.prototype.filter.call(block.querySelectorAll("[href]"), function (el) {
          return el.getAttribute("href") === href;
        });
      };
      var was = withHref(oldBlock), now = withHref(newBlock);
      if (now.length) target = now[Math.min(Math.max(0, was.indexOf(focused)), now.length - 1)];
    }
    if (!target) {
      target = newBlock;
      target.setAttribute("tabindex", "-1");
    }
    target.focus({ preventScroll: true });
  }

  // -- position and playback ------------------------------------------------

  Viewer.prototype.go = function (index, quiet) {
    if (!this.frames.length) return;
    index = Math.max(0, Math.min(this.frames.length - 1, Number(index) || 0));
    this.index = index;
    if (this.mode === "live" && !quiet) this.following = index === this.frames.length - 1;
    this.update();
    if (!this.playing) this.saveUrl();
  };

  /* A step the user asked for (button, key, slider, address): playback
   * stops and the step is said once the user stops moving. */
  Viewer.prototype.userGo = function (index) {
    this.pause();
    this.go(index);
    this.sayStep("");
  };

  Viewer.prototype.saveUrl = function () {
    // a live view that follows the newest step has no fixed position to share
    var hash = this.mode === "live" && this.following ? "" : "#step=" + this.index;
    // a ?step=N the page was opened with gives way to the hash; ?seat=N is the view shown
    var search = window.location.search.replace(/([?&])(step|seat)=[^&]*&?/g, "$1").replace(/[?&]$/, "");
    if (this.seat !== "") search += (search ? "&" : "?") + "seat=" + this.seat;
    if (((window.location.hash || "") !== hash || search !== window.location.search) && window.history && window.history.replaceState) {
      window.history.replaceState(null, "", window.location.pathname + search + hash);
    }
  };

  /* The view moves by itself: playing, or following a live match's newest
   * step. Either way the button offers Pause. */
  Viewer.prototype.running = function () {
    return this.playing || (this.mode === "live" && this.following && this.frames.length > 0);
  };

  Viewer.prototype.toggle = function () {
    if (this.running()) {
      this.pause();
      this.sayStep("Paused. ");
      return;
    }
    if (!this.frames.length) return;
    if (this.index >= this.frames.length - 1 && this.mode !== "live") this.go(0);
    this.playing = true;
    this.schedule();
    this.update();
    this.say("Playing.");
  };

  /* Stops playback; a live view stops following and stays at this step. */
  Viewer.prototype.pause = function () {
    if (!this.running()) return;
    this.playing = false;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.mode === "live") this.following = false;
    this.update();
    this.saveUrl();
  };

  /* The next step in one interval (the speed) from now, or — from a tick —
   * one interval after the previous tick was due: drawing a step takes time
   * (tens of ms for a big position) that must not stretch the interval. A
   * machine slower than the speed plays as fast as it draws. */
  Viewer.prototype.schedule = function (fromTick) {
    var self = this;
    var interval = Number(this.el.speed.value) || 1000;
    var now = Date.now();
    this.nextTick = fromTick ? Math.max(now, this.nextTick + interval) : now + interval;
    clearTimeout(this.timer);
    this.timer = setTimeout(function () {
      self.timer = null;
      if (!self.playing) return;
      if (self.index < self.frames.length - 1) {
        self.index += 1;
        if (self.mode === "live") self.following = self.index === self.frames.length - 1;
        self.update();
        self.schedule(true);
      } else if (self.mode !== "live") {
        self.pause(); // the end of the replay
        self.sayStep("End of the replay. ");
      } // live: wait for the next frames (onLive schedules again)
    }, this.nextTick - now);
  };

  // -- drawing ----------------------------------------------------------------

  /* The seats' bots (names as they are now) and the line naming the ones
   * renamed since the match with the names they played it under. */
  Viewer.prototype.setPlayers = function (players) {
    if (!players) return;
    this.players = players;
    var then = players.filter(function (p) { return p.played_as; }).map(function (p) {
      return p.bot + " played as " + p.played_as;
    });
    this.el["played-as"].textContent = then.length ? "Renamed since this match: " + then.join(", ") + "." : "";
    this.el["played-as"].hidden = !then.length;
  };

  Viewer.prototype.name = function (seat) {
    var p = this.players[seat];
    return p ? p.bot : "seat " + seat;
  };

  Viewer.prototype.context = function () {
    var self = this;
    var name = function (seat) { return self.name(seat); };
    var done = this.mode === "replay" && this.index === this.frames.length - 1;
    return {
      players: this.players,
      gameData: this.gameData,
      frames: this.frames,
      index: this.index,
      // the last position of a finished match: the match's outcome, forfeits
      // included (the view's own is the engine's, null when a forfeit ended
      // the match early, and ranks a seat that forfeited as it played)
      outcome: done ? this.outcome : null,
      // per seat null or {kind, step}: the request step it forfeited at
      faults: this.faults,
      forfeit: function (seat) { return forfeit(self.faults[seat], self.index); },
      name: name,
      words: function (text) { return GemReplay.withNames(text, name); },
      h: h,
      vh: vh,
    };
  };

  var FAULT_WORDS = {
    timeout: "did not answer in time", crash: "stopped running", memory: "ran out of memory",
    illegal: "answered an illegal action", protocol: "answered something that is not an action",
  };

  /* A seat's forfeit as the position at step `step` shows it: from the
   * request it failed (fault.step) on, a badge ("forfeited: crash") whose
   * title says what happened; null before then, or without a fault. */
  function forfeit(fault, step) {
    if (!fault || step < fault.step) return null;
    var what = FAULT_WORDS[fault.kind] || fault.kind;
    return {
      text: "forfeited: " + fault.kind,
      title: "at step " + fault.step + " this bot " + what + " and forfeited",
    };
  }

  Viewer.prototype.setMode = function (mode) {
    this.mode = mode;
    this.root.setAttribute("data-state", mode);
    this.el.live.hidden = mode !== "live" && mode !== "waiting";
    this.el.live.textContent = mode === "waiting" ? "queued" : "live";
    if (this.el.seat) {
      // while the match runs a seat's view would tell its opponents what it
      // holds: only the seats of the user's own bots (every seat for staff)
      var live = mode === "live" || mode === "waiting";
      var self = this;
      Array.prototype.forEach.call(this.el.seat.options, function (option) {
        option.disabled = live && option.value !== "" && self.liveSeats.indexOf(option.value) < 0;
      });
      this.el.seat.disabled = live && !this.liveSeats.length;
      this.el.seat.title = live && !this.liveSeats.length ? "The seats' views open once the match is over" : "";
      var shown = live ? this.liveSeat() : this.seat;
      if (live) this.el.seat.value = shown;
      this.root.setAttribute("data-view-seat", shown);
    }
  };

  /* A message under the controls; `announce`: also said (errors). The same
   * message again (a poll every few seconds) changes nothing. */
  Viewer.prototype.message = function (text, announce) {
    if (this.el.status.textContent === text && this.el.status.hidden === !text) return;
    this.el.status.textContent = text;
    this.el.status.hidden = !text;
    if (announce && text) this.news(text);
  };

  /* Live regions: both are quiet unless told. #replay-news says the match's
   * changes and errors; #replay-announce the step after a user's move, a
   * moment after the last one (a held arrow key says only where it stopped). */
  Viewer.prototype.news = function (text) {
    if (this.el.news) this.el.news.textContent = text;
  };

  Viewer.prototype.say = function (text) {
    var self = this;
    clearTimeout(this.sayTimer);
    this.sayTimer = setTimeout(function () {
      if (self.el.announce) self.el.announce.textContent = text;
    }, 250);
  };

  Viewer.prototype.sayStep = function (lead) {
    var text = this.el.action.textContent;
    if (text) this.say(lead + text);
  };

  Viewer.prototype.update = function () {
    var frame = this.frames[this.index];
    var last = Math.max(0, this.frames.length - 1);
    var root = this.root;
    root.setAttribute("data-step", String(this.index));
    root.setAttribute("data-steps", String(last));
    var running = this.running();
    root.setAttribute("data-playing", String(running));
    root.setAttribute("data-following", String(this.mode === "live" && this.following));
    this.el.slider.max = String(last);
    this.el.slider.value = String(this.index);
    this.el.slider.disabled = !this.frames.length;
    this.el.step.textContent = "Step " + this.index + " / " + last + (this.mode === "live" ? "+" : "");
    this.el.step.setAttribute("data-step", String(this.index));
    this.el.play.textContent = running ? "Pause" : "Play";
    this.el.play.setAttribute("data-playing", String(running));
    var focused = document.activeElement;
    this.el.play.disabled = !this.frames.length;
    this.el.first.disabled = this.el.prev.disabled = this.index <= 0;
    this.el.last.disabled = this.el.next.disabled = this.index >= last;
    var buttons = [this.el.first, this.el.prev, this.el.play, this.el.next, this.el.last];
    if (focused && focused.disabled && buttons.indexOf(focused) >= 0) {
      // a button that disables itself (⏭ at the end, ⏮ at the start, all of
      // them when a restarted match has no step yet) would drop the keyboard
      // focus to the page: hand it to the way back, or to the viewer
      var back = focused === this.el.first || focused === this.el.prev ? this.el.next : this.el.prev;
      if (focused === this.el.play) back = this.el.play;
      (!back.disabled ? back : !this.el.play.disabled ? this.el.play : root).focus();
    }
    var board = this.el.board;
    if (!frame) { // nothing to show (yet, or again after a restart)
      while (board.firstChild) board.removeChild(board.firstChild);
      this.el.action.textContent = "";
      this.el.note.hidden = true;
      return;
    }
    var renderer = GemReplay.renderers[this.game];
    var text;
    if (frame.step === 0) text = "Start of the game.";
    else {
      // a renderer may put the step in better words than the server could (its describe)
      var said = renderer && renderer.describe ? renderer.describe(frame, this.context()) : null;
      text = "Step " + frame.step + ": " + GemReplay.withNames(said || frame.description || frame.action, this.name.bind(this));
      if (frame.forced) text += " (played by the referee: this bot had forfeited)";
    }
    this.el.action.textContent = text;
    this.el.action.setAttribute("data-seat", frame.seat === null || frame.seat === undefined ? "" : String(frame.seat));
    // the bot was asked for this action with request step N - 1 (the number
    // `arena replay show`, --verbose and a bot's own logs use)
    this.el.action.title = frame.action
      ? "action: " + frame.action + " · request step " + (frame.step - 1)
      : "";
    var note = frame.note || "";
    this.el.note.hidden = !note;
    this.el["note-text"].textContent = note;
    if (note && this.el["note-label"]) {
      this.el["note-label"].textContent = this.ownSeats.indexOf(frame.seat) >= 0
        ? "Your bot's debug note:" : "Debug note of " + this.name(frame.seat) + ":";
    }
    while (board.firstChild) board.removeChild(board.firstChild);
    if (renderer) {
      try {
        renderer.render(board, frame, this.context());
      } catch (err) {
        board.appendChild(h("p", { class: "replay-error", text: "This position cannot be drawn: " + err }));
      }
    } else {
      board.appendChild(h("pre", { class: "replay-raw", text: JSON.stringify(frame.view, null, 1) }));
    }
  };

  GemReplay.Viewer = Viewer;

  function start() {
    var root = document.getElementById("replay");
    if (root && !root.gemReplay) root.gemReplay = new Viewer(root);
  }

  // deferred scripts run while readyState is "interactive", before the game
  // renderers that follow this file: start once they have all run
  if (document.readyState !== "complete") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
