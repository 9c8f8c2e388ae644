// Applies the saved or system theme before first paint (no flash). A file, not inline: the CSP
// allows scripts from 'self' only.
(function () {
  try {
    var saved = localStorage.getItem('theme');
    var dark =
      saved === 'dark' || (saved !== 'light' && window.matchMedia('(prefers-color-scheme: dark)').matches);
    document.documentElement.classList.toggle('dark', dark);
  } catch (e) {}
})();
