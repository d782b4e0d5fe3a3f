// Sorting and filtering of the page's tables; the page reads fine without.
(function () {
  function key(td) {
    var t = td.textContent.trim();
    var n = parseFloat(t);
    return isNaN(n) || !/^[-\d.]/.test(t) ? t.toLowerCase() : n;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var body = table.tBodies[0];
    table.querySelectorAll("th").forEach(function (th, col) {
      var up = true;
      th.addEventListener("click", function () {
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
        });
        up = !up;
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  var f = document.getElementById("classfilter");
  var t = document.getElementById("classtable");
  if (f && t) {
    f.addEventListener("input", function () {
      var q = f.value.toLowerCase();
      Array.prototype.forEach.call(t.tBodies[0].rows, function (r) {
        r.style.display = r.textContent.toLowerCase().indexOf(q) >= 0 ? "" : "none";
      });
    });
  }
  document.body.setAttribute("data-js", "ready");
})();
