import { render } from 'preact';
import { Root } from './components/root.js';
import { adoptTokenFromAddress } from './storage.js';
import { applyTheme, storedTheme } from './theme.js';

// First of all: take the token off the address bar and out of the tab's history.
adoptTokenFromAddress();
applyTheme(storedTheme());
const mount = document.getElementById('app');
if (mount !== null) render(<Root />, mount);
