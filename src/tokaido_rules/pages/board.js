/* The board drawn in the browser from a scene (tokaido_rules.render.scene_json): the
 * same SVG text the server's render.svg() gives of the same view, made here so that the
 * server sends data, not pictures. Everything a plugin adds (its spaces, notes, cards,
 * score categories) comes in the scene in display names, colours and facts: no plugin
 * needs JavaScript. No dependency, no build step.
 *
 *   TokaidoBoard.svg(scene, {width: 1200})  -> the SVG text
 *   TokaidoBoard.draw(element, scene)       -> put it in the page
 *
 * A port of render.svg: change both together (the browser tests compare them). */
(function (root) {
  "use strict";
  var VERSION = 1;
  var W = 1200, MARGIN = 24, TILE = 58, INN_W = 88, ROW_H = 134, SLOT_DROP = 24;
  var MAX_ROW = 14, EM = 0.52, CHIP_H = 34, CHIP_GAP = 6;
  var ROW_HEIGHT = {head: 22, line: 16, cards: 16, chips: CHIP_H + 6};
  var FONT = "'Helvetica Neue', Helvetica, Arial, sans-serif";
  var INK = "#2b2b2b", MUTED = "#6b6b6b", GOLD = "#e0a800";

  // --- Python's ways with numbers and text, so that the text is the server's ---------
  function len(s) { return Array.from(s).length; }  // code points, as Python's len()
  function roundHalfEven(x) {
    var r = Math.round(x);
    if (Math.abs(x % 1) === 0.5 && r % 2 !== 0) { r -= 1; }
    return r;
  }
  function n(x) {
    // f"{round(x, 1):g}": one decimal at most, ties to even (only x.25 and x.75 are
    // exact ties in binary; toFixed rounds the exact value otherwise)
    var fixed = (x * 4) % 2 !== 0 && Number.isInteger(x * 4)
      ? roundHalfEven(x * 10) / 10 : Number(x.toFixed(1));
    if (fixed === 0) { return x < 0 || Object.is(x, -0) ? "-0" : "0"; }
    return Math.abs(fixed) >= 1e5 ? String(Number(fixed.toPrecision(6))) : String(fixed);
  }
  function escape(s) {
    return String(s).replace(/&/g, "&amp;").replace(/>/g, "&gt;").replace(/</g, "&lt;");
  }
  function quoteattr(s) {
    var data = escape(s).replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
    if (data.indexOf('"') >= 0) {
      if (data.indexOf("'") >= 0) { return '"' + data.replace(/"/g, "&quot;") + '"'; }
      return "'" + data + "'";
    }
    return '"' + data + '"';
  }
  function rstrip(s) { return s.replace(/\s+$/, ""); }
  function plural(k, word) { return k + " " + word + (Math.abs(k) === 1 ? "" : "s"); }
  function ordinal(k) {
    var suffix = k % 100 >= 10 && k % 100 <= 20 ? "th" : ({1: "st", 2: "nd", 3: "rd"})[k % 10] || "th";
    return k + suffix;
  }
  function textWidth(said, size) { return len(said) * size * EM; }

  // textwrap.wrap(line, width, initial_indent=first, subsequent_indent=later,
  // break_on_hyphens=False), as render._wrap uses it
  function wrap(line, width, first, later) {
    width = Math.max(width, len(first) + 1, len(later) + 1);
    var text = line.replace(/\t/g, "        ").replace(/[\n\v\f\r]/g, " ");
    var chunks = text.split(/(\s+)/).filter(function (c) { return c !== ""; })
      .map(function (c) { return Array.from(c); });
    chunks.reverse();
    var lines = [];
    var blank = function (c) { return c.join("").trim() === ""; };
    while (chunks.length) {
      var cur = [], curLen = 0, indent = lines.length ? later : first;
      var w = width - len(indent);
      if (blank(chunks[chunks.length - 1]) && lines.length) { chunks.pop(); }
      while (chunks.length) {
        var l = chunks[chunks.length - 1].length;
        if (curLen + l <= w) { cur.push(chunks.pop()); curLen += l; } else { break; }
      }
      if (chunks.length && chunks[chunks.length - 1].length > w) {
        var left = w < 1 ? 1 : w - curLen, chunk = chunks[chunks.length - 1];
        cur.push(chunk.slice(0, left));
        chunks[chunks.length - 1] = chunk.slice(left);
        curLen = cur.reduce(function (a, c) { return a + c.length; }, 0);
      }
      if (cur.length && blank(cur[cur.length - 1])) { curLen -= cur.pop().length; }
      if (cur.length) {
        lines.push(indent + cur.map(function (c) { return c.join(""); }).join(""));
      }
    }
    return lines.length ? lines : [rstrip(first)];
  }
  // render._pack: items joined by sep, wrapped between items where one fits
  function pack(items, width, first, later, sep) {
    var trailing = rstrip(sep), space = sep.slice(trailing.length);
    var lines = [], line = first;
    items.forEach(function (item, k) {
      var piece = item + (k + 1 < items.length ? trailing : "");
      var joiner = line === first || line === later ? "" : space;
      if (len(line) + len(joiner) + len(piece) <= width) { line += joiner + piece; return; }
      if (line !== first && line !== later) { lines.push(line); line = later; }
      if (len(line) + len(piece) <= width) {
        line += piece;
      } else {
        var cut = wrap(piece, width, line, later);
        lines = lines.concat(cut.slice(0, -1));
        line = cut[cut.length - 1];
      }
    });
    lines.push(line);
    return lines.map(rstrip);
  }
  function wrapPx(items, pixels, size, sep) {
    return pack(items, Math.max(8, Math.trunc(pixels / (size * EM))), "", "",
                sep === undefined ? " · " : sep);
  }

  // --- colours ------------------------------------------------------------------------
  function rgb(c) {
    return [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)];
  }
  function hex2(v) { return (v < 16 ? "0" : "") + v.toString(16); }
  function darker(colour, amount) {
    if (amount === undefined) { amount = 0.42; }
    return "#" + rgb(colour).map(function (c) { return hex2(roundHalfEven(c * (1 - amount))); }).join("");
  }
  function inkOn(colour) {
    var c = rgb(colour).map(function (v) { return v / 255; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] > 0.55 ? INK : "#ffffff";
  }

  // --- an SVG document as a list of elements ----------------------------------------
  function Svg() { this.parts = []; }
  Svg.prototype.add = function (e) { this.parts.push(e); };
  Svg.prototype.rect = function (x, y, w, h, fill, o) {
    o = o || {};
    this.add('<rect x="' + n(x) + '" y="' + n(y) + '" width="' + n(w) + '" height="' + n(h) +
             '" rx="' + n(o.rx || 0) + '" fill="' + fill + '" stroke="' + (o.stroke || "none") +
             '" stroke-width="' + n(o.width === undefined ? 1 : o.width) + '"' + (o.extra || "") + "/>");
  };
  Svg.prototype.circle = function (x, y, r, fill, o) {
    o = o || {};
    this.add('<circle cx="' + n(x) + '" cy="' + n(y) + '" r="' + n(r) + '" fill="' + fill +
             '" stroke="' + (o.stroke || "none") + '" stroke-width="' +
             n(o.width === undefined ? 1 : o.width) + '"' + (o.extra || "") + "/>");
  };
  Svg.prototype.text = function (x, y, said, o) {
    o = o || {};
    var size = o.size === undefined ? 12 : o.size, squeeze = "";
    if (o.fit !== undefined && textWidth(said, size) > o.fit) {
      squeeze = ' textLength="' + n(o.fit) + '" lengthAdjust="spacingAndGlyphs"';
    }
    this.add('<text x="' + n(x) + '" y="' + n(y) + '" font-size="' + n(size) + '" fill="' +
             (o.fill || INK) + '" text-anchor="' + (o.anchor || "start") + '" font-weight="' +
             (o.weight || "normal") + '"' + squeeze + ">" + escape(said) + "</text>");
  };

  function star(x, y, r) {
    var points = [];
    for (var k = 0; k < 10; k++) {
      var angle = Math.PI / 2 + k * Math.PI / 5, d = k % 2 === 0 ? r : r * 0.45;
      points.push(n(x + d * Math.cos(angle)) + "," + n(y - d * Math.sin(angle)));
    }
    return '<polygon class="winner-mark" points="' + points.join(" ") + '" fill="' + GOLD +
      '" stroke="' + darker(GOLD, 0.45) + '" stroke-width="1"/>';
  }
  function attributes(card) {
    return card.attributes.map(function (a) { return " " + a[0] + "=" + quoteattr(a[1]); }).join("");
  }
  function svgRows(board) {
    var inns = [], rows = [];
    board.forEach(function (s, i) { if (s.inn) { inns.push(i); } });
    for (var k = 0; k + 1 < inns.length; k++) {
      var a = inns[k], b = inns[k + 1], road = [], chunks = [];
      for (var i = a + 1; i < b; i++) { road.push(i); }
      for (var j = 0; j < road.length; j += MAX_ROW) { chunks.push(road.slice(j, j + MAX_ROW)); }
      if (!chunks.length) { chunks.push([]); }
      chunks.forEach(function (chunk, m) {
        rows.push([chunk, m === chunks.length - 1 ? b : null]);
      });
    }
    return rows;
  }

  // --- one picture, part by part: each part takes its top and returns its bottom ----
  function Picture(sc) {
    this.sc = sc;
    this.out = new Svg();
    this.at = {};
    var at = this.at;
    sc.pieces.forEach(function (p, i) { (at[p.position] = at[p.position] || []).push([p.slot, i]); });
    Object.keys(at).forEach(function (k) {
      at[k].sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    });
    this.ringed = {};
    var ringed = this.ringed;
    sc.pieces.forEach(function (p, i) {
      if (p.seat !== null && p.seat === sc.current_player) { ringed[i] = true; }
    });
    this.ranks = {};
    var ranks = this.ranks;
    (sc.standings || []).forEach(function (r) { ranks[r.seat] = r; });
  }
  Picture.prototype.standing = function (i) {
    var seat = this.sc.pieces[i].seat;
    return seat === null ? null : this.ranks[seat] || null;
  };
  Picture.prototype.marks = function (i) {
    var seat = this.sc.pieces[i].seat, found = this.standing(i);
    var said = ' data-piece="' + i + '" data-seat="' + (seat === null ? "" : seat) + '"';
    if (found) {
      said += ' data-rank="' + found.rank + '" data-winner="' + (found.winner ? "true" : "false") + '"';
    }
    return said;
  };
  Picture.prototype.colour = function (i) {
    var seat = this.sc.pieces[i].seat, colours = this.sc.colours;
    return seat === null ? this.sc.neutral_colour : colours[seat % colours.length];
  };
  Picture.prototype.piece = function (i, x, y, r) {
    if (r === undefined) { r = 14; }
    var out = this.out, p = this.sc.pieces[i], colour = this.colour(i);
    var tip = p.who + ": " + plural(p.coins, "coin") + ", " + plural(p.total, "point");
    var standing = this.standing(i);
    if (standing) { tip += ", " + ordinal(standing.rank) + (standing.winner ? ", winner" : ""); }
    out.add('<g class="piece"' + this.marks(i) + "><title>" + escape(tip) + "</title>");
    if (this.ringed[i]) {
      out.circle(x, y, r + 4, "none", {stroke: INK, width: 2, extra: ' stroke-dasharray="3 2"'});
    }
    out.circle(x + 1, y + 1.5, r, "#000000", {extra: ' opacity="0.22"'});
    out.circle(x, y, r, colour, {stroke: "#ffffff", width: 2});
    out.text(x, y + r * 0.34, p.seat === null ? "N" : String(p.seat),
             {size: r * 0.95, fill: inkOn(colour), anchor: "middle", weight: "bold"});
    if (standing && standing.winner) { out.add(star(x + r * 0.8, y - r * 0.8, 7)); }
    out.add("</g>");
  };
  Picture.prototype.board = function (top) {
    var self = this, rows = svgRows(this.sc.board), centre = [];
    var leftInn = MARGIN, rightInn = W - MARGIN - INN_W;
    var roadA = leftInn + INN_W + 18, roadB = rightInn - 18;
    var contentH = TILE + SLOT_DROP + 22;
    var inns = [[0, leftInn, top, contentH]];
    var road = [[leftInn + INN_W / 2, top + TILE / 2]];
    rows.forEach(function (row, r) {
      var spaces = row[0], turn = row[1], y = top + r * ROW_H, forward = r % 2 === 0;
      var pitch = (roadB - roadA) / Math.max(spaces.length, 1);
      spaces.forEach(function (i, k) {
        var cx = forward ? roadA + pitch * (k + 0.5) : roadB - pitch * (k + 0.5);
        centre.push([i, cx, y]);
        road.push([cx, y + TILE / 2]);
      });
      var sideX = forward ? rightInn : leftInn;
      road.push([sideX + INN_W / 2, y + TILE / 2]);
      if (r + 1 < rows.length) { road.push([sideX + INN_W / 2, y + ROW_H + TILE / 2]); }
      if (turn !== null) {
        inns = inns.filter(function (b) { return b[0] !== turn; });
        inns.push([turn, sideX, y, contentH + (r + 1 === rows.length ? 0 : ROW_H)]);
      }
    });
    var points = road.map(function (p) { return n(p[0]) + "," + n(p[1]); }).join(" ");
    this.out.add('<polyline points="' + points + '" fill="none" stroke="#d9cfbd" ' +
                 'stroke-width="16" stroke-linejoin="round" stroke-linecap="round"/>');
    this.out.add('<polyline points="' + points + '" fill="none" stroke="#fffaf0" ' +
                 'stroke-width="2" stroke-dasharray="7 7"/>');
    inns.sort(function (a, b) { return a[0] - b[0]; });
    inns.forEach(function (b) { self.inn(b[0], b[1], b[2], b[3]); });
    centre.sort(function (a, b) { return a[0] - b[0]; });
    centre.forEach(function (c) { self.space(c[0], c[1], c[2]); });
    return top + (rows.length - 1) * ROW_H + contentH;
  };
  Picture.prototype.inn = function (i, x, y, h) {
    var out = this.out, look = this.sc.board[i], fill = look.colour, band = darker(fill, 0.5);
    out.add('<g data-position="' + i + '">');
    out.rect(x, y, INN_W, h, fill, {rx: 12, stroke: band, width: 2});
    out.add('<path d="M' + n(x) + "," + n(y + 26) + " v-14 a12,12 0 0 1 12,-12 h" +
            n(INN_W - 24) + ' a12,12 0 0 1 12,12 v14 z" fill="' + band + '"/>');
    out.text(x + 10, y + 18, look.label, {size: 13, fill: inkOn(band), weight: "bold", fit: INN_W - 36});
    out.text(x + INN_W - 8, y + 18, String(i), {size: 10, fill: inkOn(band), anchor: "end"});
    var here = this.at[i] || [];
    var across = 42 + Math.floor((here.length - 1) / 2) * 28 + 12 <= h - 6 ? 2 : 3;
    var step = (INN_W - 20) / across;
    for (var k = 0; k < here.length; k++) {
      this.piece(here[k][1], x + 10 + step * (k % across + 0.5),
                 y + 42 + Math.floor(k / across) * 28, across === 2 ? 12 : 11);
    }
    out.add("</g>");
  };
  Picture.prototype.space = function (i, cx, y) {
    var out = this.out, space = this.sc.board[i], slots = space.slots;
    var fill = space.colour, edge = darker(fill), x = cx - TILE / 2;
    var slotX = function (slot) { return slots > 2 ? cx + (slot - slots / 2) * 34 : cx; };
    out.add('<g data-position="' + i + '">');
    for (var slot = 1; slot < slots; slot++) {
      var sy = y + TILE + SLOT_DROP;
      out.add('<line x1="' + n(cx) + '" y1="' + n(y + TILE) + '" x2="' + n(slotX(slot)) +
              '" y2="' + n(sy - 15) + '" stroke="' + edge + '" stroke-width="1.5" ' +
              'stroke-dasharray="2 2"/>');
      out.circle(slotX(slot), sy, 15, "#ffffff",
                 {stroke: edge, width: 1.5, extra: ' stroke-dasharray="3 2" fill-opacity="0.7"'});
    }
    out.rect(x, y, TILE, TILE, fill, {rx: 9, stroke: edge, width: 1.5});
    out.text(x + 5, y + 12, String(i), {size: 10, fill: darker(fill, 0.6)});
    if (space.double) {
      [0, 6].forEach(function (d) { out.circle(x + TILE - 13 + d, y + 8, 2.2, edge); });
    }
    out.text(cx, y + TILE - 6, space.label, {size: 9.5, fill: darker(fill, 0.72), anchor: "middle",
                                              fit: TILE - 6});
    var self = this;
    (this.at[i] || []).forEach(function (sp) {
      if (sp[0] === 0) { self.piece(sp[1], cx, y + TILE / 2 - 4); }
      else { self.piece(sp[1], slotX(sp[0]), y + TILE + SLOT_DROP, 13); }
    });
    out.add("</g>");
  };
  Picture.prototype.cardBody = function (i, inner) {
    var self = this, sc = this.sc, p = sc.pieces[i], body = [];
    function section(head, items, sep) {
      body.push({kind: "head", text: head});
      wrapPx(items, inner, 12, sep).forEach(function (line) { body.push({kind: "line", text: line}); });
    }
    function said(pairs) { return pairs.map(function (x) { return x[0] + " " + x[1]; }); }
    if (p.seat !== null) {
      var collection = said(p.collection);
      section("Collection", collection.length ? collection : ["nothing yet"]);
      if (p.families.length) { section("Souvenir families", said(p.families)); }
      var points = said(p.points);
      section("Points", points.length ? points : ["none yet"]);
      if (p.seat === sc.seat && p.cards && p.cards.length) {
        body.push({kind: "head", text: "Your cards"});
        this.nameLines(p.cards, inner, 12).forEach(function (line) {
          body.push({kind: "cards", cards: line});
        });
      }
    }
    sc.notes.forEach(function (note) {
      if (note.piece !== i) { return; }
      if (note.cards.length) {
        body.push({kind: "head", text: note.label});
        self.chipRows(note.cards, inner).forEach(function (row) { body.push({kind: "chips", cards: row}); });
      } else {
        section(note.label, note.text.split(", "), ", ");
      }
    });
    return body;
  };
  Picture.prototype.cards = function (top) {
    var self = this, out = this.out, sc = this.sc, count = sc.pieces.length, gap = 14;
    var cardW = (W - 2 * MARGIN - gap * (count - 1)) / Math.max(count, 1), inner = cardW - 24;
    var bodies = sc.pieces.map(function (_, i) { return self.cardBody(i, inner); });
    var tallest = bodies.reduce(function (most, body) {
      return Math.max(most, body.reduce(function (a, row) { return a + ROW_HEIGHT[row.kind]; }, 0));
    }, bodies.length ? -Infinity : 0);
    var cardH = 104 + tallest;
    sc.pieces.forEach(function (p, i) {
      var colour = self.colour(i), x = MARGIN + i * (cardW + gap), standing = self.standing(i);
      var won = !!(standing && standing.winner);
      out.add('<g class="traveller"' + self.marks(i) + ">");
      out.rect(x, top, cardW, cardH, "#ffffff", {rx: 10, stroke: won ? GOLD : "#d8d2c4", width: won ? 3 : 1.5});
      out.add('<path d="M' + n(x) + "," + n(top + 30) + " v-20 a10,10 0 0 1 10,-10 h" +
              n(cardW - 20) + ' a10,10 0 0 1 10,10 v20 z" fill="' + colour + '"/>');
      var ink = inkOn(colour);
      var name = p.seat === null ? "Neutral traveller" : "Seat " + p.seat + " · " + p.traveller;
      out.text(x + 12, top + 20, name, {size: 14, fill: ink, weight: "bold", fit: cardW - 64 - (won ? 50 : 0)});
      var tag = [["you", p.seat !== null && p.seat === sc.seat], ["to play", !!self.ringed[i]],
                 ["winner", won]].filter(function (t) { return t[1]; })
        .map(function (t) { return t[0]; }).join(" · ");
      if (tag) {
        out.text(x + cardW - (won ? 26 : 10), top + 20, tag, {size: 11, fill: ink, anchor: "end", weight: "bold"});
      }
      if (won) { out.add(star(x + cardW - 14, top + 15, 8)); }
      var place = sc.board[p.position].label;
      var stats = p.seat !== null ? [[String(p.total), "points"], [String(p.coins), "coins"]] : [];
      if (standing) { stats.push([ordinal(standing.rank), won ? "winner" : "rank"]); }
      else { stats.push([String(p.position), place]); }
      stats.forEach(function (st, k) {
        var sx = x + 12 + k * inner / 3;
        out.text(sx, top + 62, st[0], {size: 24, weight: "bold"});
        out.text(sx, top + 78, st[1], {size: 10.5, fill: MUTED, fit: inner / 3 - 6});
      });
      var y = top + 96;
      bodies[i].forEach(function (row) {
        if (row.kind === "head") {
          out.text(x + 12, y + 16, row.text, {size: 10.5, fill: MUTED, weight: "bold", fit: inner});
        } else if (row.kind === "cards") {
          self.names(x + 12, y + 10, row.cards, 12);
        } else if (row.kind === "chips") {
          self.chips(x + 12, y + 3, row.cards, inner);
        } else {
          out.text(x + 12, y + 10, row.text, {size: 12, fit: inner});
        }
        y += ROW_HEIGHT[row.kind];
      });
      out.add("</g>");
    });
    return top + cardH;
  };
  Picture.prototype.facts = function (card) {
    return this.sc.cards[card] || {name: card, tag: "card", line: card + ": card", family: false,
                                   colour: "#8c8577", attributes: [["data-card", card]]};
  };
  Picture.prototype.nameLines = function (cards, pixels, size) {
    var self = this, lines = [[]], used = 0;
    cards.forEach(function (card) {
      var wide = textWidth(self.facts(card).name + ", ", size);
      if (lines[lines.length - 1].length && used + wide > pixels) { lines.push([]); used = 0; }
      lines[lines.length - 1].push(card);
      used += wide;
    });
    return lines.filter(function (l) { return l.length; });
  };
  Picture.prototype.names = function (x, y, cards, size) {
    var self = this;
    var parts = cards.map(function (card, k) {
      var f = self.facts(card);
      var fill = f.family ? ' fill="' + f.colour + '" font-weight="bold"' : "";
      return "<tspan" + attributes(f) + fill + "><title>" + escape(f.line) + "</title>" +
        escape(f.name) + "</tspan>" + (k + 1 < cards.length ? ", " : "");
    });
    this.out.add('<text x="' + n(x) + '" y="' + n(y) + '" font-size="' + n(size) + '" fill="' +
                 INK + '">' + parts.join("") + "</text>");
  };
  Picture.prototype.chipWidth = function (card) {
    var f = this.facts(card);
    return Math.max(textWidth(f.name, 11.5), textWidth(f.tag, 9.5), 44) + 18;
  };
  Picture.prototype.chipRows = function (cards, pixels) {
    var self = this, rows = [[]], used = 0;
    cards.forEach(function (card) {
      var wide = Math.min(self.chipWidth(card), pixels);
      if (rows[rows.length - 1].length && used + wide > pixels) { rows.push([]); used = 0; }
      rows[rows.length - 1].push(card);
      used += wide + CHIP_GAP;
    });
    return rows.filter(function (r) { return r.length; });
  };
  Picture.prototype.chips = function (x, y, cards, pixels) {
    var self = this, out = this.out;
    cards.forEach(function (card) {
      var f = self.facts(card), w = Math.min(self.chipWidth(card), pixels), edge = f.colour;
      out.add('<g class="card"' + attributes(f) + "><title>" + escape(f.line) + "</title>");
      out.rect(x, y, w, CHIP_H, "#fffdf7", {rx: 5, stroke: edge, width: 1.2});
      out.rect(x, y, 5, CHIP_H, edge, {rx: 2});
      out.text(x + 10, y + 14, f.name, {size: 11.5, weight: "bold", fit: w - 14});
      out.text(x + 10, y + 28, f.tag, {size: 9.5, fill: MUTED, fit: w - 14});
      out.add("</g>");
      x += w + CHIP_GAP;
    });
  };
  Picture.prototype.table = function (top) {
    var self = this, out = this.out;
    var table = this.sc.notes.filter(function (note) { return note.piece === null; });
    if (!table.length) { return top - 18; }
    var room = W - 2 * MARGIN - 200, rows = [];
    table.forEach(function (note) {
      var found = note.cards.length
        ? self.chipRows(note.cards, room).map(function (row) { return {kind: "chips", cards: row}; })
        : wrapPx(note.text.split(", "), room, 12.5, ", ").map(function (t) { return {kind: "line", text: t}; });
      found.forEach(function (row, k) { rows.push([k === 0 ? note.label : "", row]); });
    });
    var boxH = 20 + rows.reduce(function (a, r) { return a + (r[1].kind === "line" ? 19 : CHIP_H + 8); }, 0);
    out.rect(MARGIN, top, W - 2 * MARGIN, boxH, "#fbf7ee", {rx: 10, stroke: "#d8d2c4", width: 1.5});
    var y = top + 25;
    rows.forEach(function (r) {
      var label = r[0], row = r[1], chips = row.kind === "chips";
      if (label) { out.text(MARGIN + 14, y + (chips ? 9 : 0), label, {size: 12.5, weight: "bold", fit: 170}); }
      if (chips) { self.chips(MARGIN + 190, y - 13, row.cards, room); y += CHIP_H + 8; }
      else { out.text(MARGIN + 190, y, row.text, {size: 12.5}); y += 19; }
    });
    return top + boxH;
  };
  Picture.prototype.legend = function (top) {
    var out = this.out, room = W - 2 * MARGIN - 28, rows = [[]], used = 0;
    this.sc.legend.forEach(function (item) {
      var wide = 30 + textWidth(item.label, 12) + 18;
      if (rows[rows.length - 1].length && used + wide > room) { rows.push([]); used = 0; }
      rows[rows.length - 1].push([item, wide]);
      used += wide;
    });
    var boxH = 34 + 30 * rows.length;
    out.add('<g class="legend">');
    out.rect(MARGIN, top, W - 2 * MARGIN, boxH, "#fbf7ee", {rx: 10, stroke: "#d8d2c4", width: 1.5});
    out.text(MARGIN + 14, top + 20, "Legend", {size: 12.5, weight: "bold"});
    rows.forEach(function (row, r) {
      var x = MARGIN + 14.0, y = top + 30 + 30 * r;
      row.forEach(function (iw) {
        out.add("<g data-key=" + quoteattr(iw[0].key) + ' transform="translate(' + n(x) + "," +
                n(y) + ')">' + iw[0].swatch + "</g>");
        out.text(x + 30, y + 16, iw[0].label, {size: 12});
        x += iw[1];
      });
    });
    out.add("</g>");
    return top + boxH;
  };
  Picture.prototype.head = function (height) {
    var sc = this.sc, head = new Svg(), title = "Tokaido · " + sc.players + " players";
    var seen = sc.spectator ? " · as a spectator sees it"
      : sc.seat === null ? "" : " · as seat " + sc.seat + " sees it";
    head.rect(0, 0, W, height, "#f6f1e6");
    head.add('<text x="' + MARGIN + '" y="40" font-size="24" font-weight="bold" fill="' + INK +
             '">' + escape(title) + '<tspan font-size="15" font-weight="normal" fill="' + MUTED +
             '">' + escape(seen) + "</tspan></text>");
    head.text(W - MARGIN, 40, "Turn " + sc.turn + " · " + sc.status,
              {size: 15, anchor: "end", fit: W / 2 - MARGIN});
    var pluginsFit = W - 2 * MARGIN;
    if (sc.standings && sc.standings.length) {
      head.add('<g class="outcome">');
      head.text(W - MARGIN, 64, sc.outcome, {size: 14, anchor: "end", weight: "bold",
                                             fill: darker(GOLD, 0.35), fit: W * 0.6 - MARGIN});
      head.add("</g>");
      pluginsFit = W * 0.4 - MARGIN - 12;
    }
    head.text(MARGIN, 64, "Plugins: " + sc.plugins.join(", "), {size: 13, fill: MUTED, fit: pluginsFit});
    return head;
  };

  function svg(sc, options) {
    if (!sc || sc.format !== "tokaido-scene" || sc.version !== VERSION) {
      throw new Error("not a scene of version " + VERSION);
    }
    var width = options && options.width !== undefined ? options.width : W;
    var legend = !(options && options.legend === false) && !!sc.legend;
    var picture = new Picture(sc);
    var height = picture.table(picture.cards(picture.board(88) + 30) + 18);
    if (legend) { height = picture.legend(height + 18); }
    height += MARGIN;
    var head = picture.head(height);
    var over = sc.over ? ' data-over="true"' : ' data-over="false"';
    if (sc.standings) {
      over += ' data-winners="' + sc.standings.filter(function (r) { return r.winner; })
        .map(function (r) { return r.seat; }).join(",") + '"';
    }
    return '<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' +
      n(height * width / W) + '" viewBox="0 0 ' + W + " " + n(height) + '" font-family=' +
      quoteattr(FONT) + over + ">" + head.parts.join("") + picture.out.parts.join("") + "</svg>";
  }
  function draw(element, sc, options) {
    element.innerHTML = svg(sc, options);
    return element.firstChild;
  }
  root.TokaidoBoard = {svg: svg, draw: draw, version: VERSION};
})(typeof window !== "undefined" ? window : this);
