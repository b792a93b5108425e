// The page's theme: light or dark as the system is, or as the account menu's switch chose (kept
// in this browser). A classic script in <head>, run before the page draws, so the page never
// flashes the other theme; it follows the system's change, and another tab's switch, at once.
(function () {
  const key = 'lightbox-theme';
  const system = matchMedia('(prefers-color-scheme: light)');
  function choice() {
    try { return localStorage.getItem(key) || 'system'; } catch { return 'system'; }
  }
  function apply() {
    const chosen = choice();
    const theme = chosen === 'light' || chosen === 'dark' ? chosen : system.matches ? 'light' : 'dark';
    document.documentElement.dataset.theme = theme;
  }
  apply();
  system.addEventListener('change', apply);
  addEventListener('storage', event => { if (event.key === key) apply(); });
  // For the account menu's switch: 'system', 'light' or 'dark'.
  window.lightboxTheme = {
    choice,
    choose(value) {
      try { if (value === 'system') localStorage.removeItem(key); else localStorage.setItem(key, value); } catch {}
      apply();
    },
  };
})();
