// engram ui — progressive enhancement for server-rendered pages (no build step, no framework).
// Everything works without this script; it adds live updates, line picking and plan shortcuts.
(() => {
  const body = document.body;
  const live = document.getElementById("live");
  const notice = document.getElementById("notice");
  const scope = body.dataset.scope;

  // Live updates over SSE: core's watcher reports changes; a page without forms refreshes its
  // main part in place, a page with forms (the plans) only says that memory changed.
  if (window.EventSource) {
    const events = new EventSource(`/api/events?scope=${encodeURIComponent(scope)}`);
    let busy = false;
    const refresh = async () => {
      if (busy) return;
      busy = true;
      try {
        const res = await fetch(location.href, { headers: { accept: "text/html" } });
        if (!res.ok) return;
        const doc = new DOMParser().parseFromString(await res.text(), "text/html");
        const next = doc.getElementById("main");
        const main = document.getElementById("main");
        if (next && main) {
          main.replaceChildren(...next.childNodes);
          enhance(main);
          main.dispatchEvent(new CustomEvent("engram:refreshed", { bubbles: true }));
        }
      } finally {
        busy = false;
      }
    };
    const changed = () => {
      if (body.dataset.live === "swap") {
        void refresh();
      } else if (notice) {
        notice.hidden = false;
        notice.replaceChildren(
          "Memory changed since this page was loaded. ",
          Object.assign(document.createElement("a"), {
            href: location.href,
            textContent: "Reload",
          }),
        );
      }
    };
    events.addEventListener("ready", () => live?.classList.add("on"));
    events.addEventListener("changed", changed);
    events.addEventListener("synced", changed);
    events.addEventListener("error", () => live?.classList.remove("on"));
  }

  function enhance(root) {
    // Plans: approve all / reject all, and a count of what is approved.
    for (const form of root.querySelectorAll(".plan-form")) {
      const boxes = () => [...form.querySelectorAll('input[name="approve"]')];
      const count = form.querySelector("[data-count]");
      const show = () => {
        if (count)
          count.textContent = `${boxes().filter((b) => b.checked).length} of ${boxes().length} approved`;
      };
      for (const button of form.querySelectorAll("[data-select]")) {
        button.addEventListener("click", () => {
          for (const b of boxes()) b.checked = button.dataset.select === "all";
          show();
        });
      }
      form.addEventListener("change", show);
      show();
    }
    // Confirm before destructive actions (they are undoable, but say so first).
    for (const form of root.querySelectorAll("form[data-confirm]")) {
      form.addEventListener("submit", (event) => {
        if (!window.confirm(form.dataset.confirm)) event.preventDefault();
      });
    }
    // Raw view: click a line number to pick it for forget/edit, shift-click to extend.
    const table = root.querySelector("table.raw");
    const from = root.querySelector('.line-form input[name="startLine"]');
    const to = root.querySelector('.line-form input[name="endLine"]');
    if (table && from && to) {
      let anchor = null;
      table.addEventListener("click", (event) => {
        const link = event.target.closest("a[data-line]");
        if (!link) return;
        event.preventDefault();
        const n = Number(link.dataset.line);
        const a = event.shiftKey && anchor !== null ? Math.min(anchor, n) : n;
        const b = event.shiftKey && anchor !== null ? Math.max(anchor, n) : n;
        if (!event.shiftKey) anchor = n;
        from.value = String(a);
        to.value = String(b);
        for (const row of table.rows) {
          const line = Number(row.querySelector("a[data-line]")?.dataset.line);
          row.classList.toggle("picked", line >= a && line <= b);
        }
        root.querySelector(".curate-lines")?.setAttribute("open", "");
      });
    }
  }

  enhance(document);
})();
