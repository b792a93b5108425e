// The sign-in page: posts the name and password as JSON, then goes to the library.

const form = document.getElementById('signin');
const error = document.getElementById('signin-error');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.textContent = '';
  const button = form.querySelector('button');
  button.disabled = true;
  try {
    const response = await fetch('/api/session', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: form.elements.name.value, password: form.elements.password.value }),
    });
    if (response.ok) {
      location.replace('/');
      return;
    }
    error.textContent = (await response.json()).error.message;
  } catch (failure) {
    error.textContent = 'The server cannot be reached: ' + failure.message;
  } finally {
    button.disabled = false;
  }
});
