this is my client, see attached
