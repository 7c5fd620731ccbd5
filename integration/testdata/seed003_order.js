db.siparisler.insertOne( {
   _id: 5001,
   musteriId: "u42",
   tarih: new Date("2026-11-05"),
   kalemler: [
      { urunId: 7, ad: "Kablosuz Fare", birimFiyat: 450, adet: 2 },
      { urunId: 9, ad: "USB Bellek", birimFiyat: 180, adet: 1 }
   ],
   toplam: 1080
} )
