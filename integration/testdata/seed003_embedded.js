// Gömülü model: adres ve iletişim bilgisi kullanıcı belgesinin içinde
{
   _id: "u42",
   ad: "Deniz",
   iletisim: { eposta: "deniz@example.com", telefon: "0555 000 00 00" },
   adresler: [
      { tur: "ev", sehir: "Bursa" },
      { tur: "is", sehir: "İstanbul" }
   ]
}
